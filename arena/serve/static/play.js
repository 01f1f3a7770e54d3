/* arena serve: the table. Shows the state the server sends for this seat, and sends a choice; the server
   checks every choice (nothing here decides a game). Plain JavaScript, no libraries, nothing from outside. */
(function () {
  "use strict";
  var game = document.getElementById("game");
  if (!game) return;
  var T = JSON.parse(document.getElementById("strings").textContent);
  var code = game.getAttribute("data-code");
  var SUIT = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  var state = null, ws = null, clockEnd = null, tries = 0, keyed = [];
  var $ = function (id) { return document.getElementById(id); };

  function fmt(s, o) {
    return String(s).replace(/\{(\w+)\}/g, function (m, k) { return k in o ? o[k] : m; });
  }
  function cardText(c) { return (c[0] === "T" ? "10" : c[0]) + SUIT[c[1]]; }
  function cardEl(c, tag) {
    var e = document.createElement(tag || "span");
    e.className = "card" + (c[1] === "h" || c[1] === "d" ? " red" : "");
    e.textContent = cardText(c);
    return e;
  }
  function fill(el, nodes) {
    while (el.firstChild) el.removeChild(el.firstChild);
    nodes.forEach(function (n) { el.appendChild(typeof n === "string" ? document.createTextNode(n) : n); });
  }
  function seatName(s) {
    if (!state) return "";
    return state.seat === s ? T.you : state.names[s];
  }
  function reason(r) { return T["r_" + r] || String(r).replace(/-/g, " "); }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + "/ws/" + code);
    ws.onopen = function () { tries = 0; };
    ws.onmessage = function (e) {
      var m = JSON.parse(e.data);
      if (m.type === "state") {
        // a person's seat is named host, guest or human (the database's names): shown in the page's language
        m.names = (m.names || []).map(function (n) { return T["who_" + n] || n; });
        state = m; hideError(); render();
        game.setAttribute("data-version", String(Number(game.getAttribute("data-version") || 0) + 1));
      }
      else if (m.type === "error") { showError(m); }
    };
    ws.onclose = function () {
      if (state && state.phase === "over") return;
      $("status").textContent = T.connection_lost;
      tries += 1;
      setTimeout(connect, Math.min(5000, 300 * tries));
    };
  }
  function send(token) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "action", action: token }));
  }
  function showError(m) {
    var e = $("error");
    e.textContent = fmt(T.error, { message: T["err_" + m.code] || m.message });
    e.hidden = false;
  }
  function hideError() { $("error").hidden = true; }

  function actionButton(token, label) {
    var b = document.createElement("button");
    b.type = "button";
    b.setAttribute("data-action", token);
    if (typeof label === "string") b.textContent = label; else b.appendChild(label);
    b.addEventListener("click", function () { send(token); });
    return b;
  }
  function actionLabel(token) {
    var kind = token.split(":")[0], card = token.split(":")[1];
    if (kind === "marry") {
      var span = document.createElement("span");
      span.appendChild(document.createTextNode(fmt(T.marry, { card: "" })));
      span.appendChild(cardEl(card));
      return span;
    }
    return T[kind] || token;
  }

  function render() {
    var s = state, me = s.seat, view = me === null || me === undefined ? 0 : me, other = 1 - view;
    var hint = document.querySelector(".hint");
    if (hint) hint.hidden = me === null || me === undefined;  // the keys move only for a player
    var legal = s.legal || [];
    $("name-me").textContent = s.names[view] + (me === view ? " (" + T.you + ")" : "");
    $("name-them").textContent = s.names[other];
    [[view, "stat-me"], [other, "stat-them"]].forEach(function (p) {
      var i = p[0], pts = s.points ? s.points[i] : 0, pend = s.pending ? s.pending[i] : 0;
      var text = T.points + " " + pts + (pend ? " (+" + pend + " " + T.pending + ")" : "") +
        " · " + T.tricks + " " + (s.tricks ? s.tricks[i] : 0);
      if (s.present && !s.present[i]) text += " · " + T.present_no;
      $(p[1]).textContent = text;
    });
    fill($("trump"), s.trump_card ? [cardEl(s.trump_card)] : s.trump ? [cardEl("x" + s.trump)] : []);
    if (!s.trump_card && s.trump) $("trump").firstChild.textContent = SUIT[s.trump];
    var talon = s.talon === null || s.talon === undefined ? "" : s.talon === 0 ? T.talon_empty : String(s.talon);
    if (s.closed_by !== null && s.closed_by !== undefined) talon += " (" + fmt(T.talon_closed, { name: seatName(s.closed_by) }) + ")";
    $("talon").textContent = talon;
    fill($("table"), (s.table || []).map(function (p) { var c = cardEl(p[1]); c.title = s.names[p[0]]; return c; }));
    fill($("last-trick"), s.last_trick ? s.last_trick.cards.map(function (p) { return cardEl(p[1]); })
      .concat([" → " + seatName(s.last_trick.winner) + " +" + s.last_trick.points]) : []);
    fill($("known"), s.known && s.known.length ? [fmt(T.known, { name: s.names[other] }) + ": "]
      .concat(s.known.map(function (c) { return cardEl(c); })) : []);
    $("match-score").textContent = (s.score ? s.score[view] + "–" + s.score[other] : "") +
      (s.target ? " (" + fmt(T.target, { n: s.target }) + ")" + (s.deal ? " · " + fmt(T.deal, { n: s.deal }) : "") : "");

    var byToken = {};
    var hand = (s.hand || []).map(function (c) {
      var token = "play:" + c;
      if (legal.indexOf(token) >= 0) {
        var b = actionButton(token, cardEl(c));
        b.className = "cardbutton";
        b.setAttribute("aria-label", fmt(T.play, { card: cardText(c) }));
        byToken[token] = b;
        return b;
      }
      return cardEl(c);
    });
    fill($("hand"), hand);
    var extra = legal.filter(function (t) { return t.indexOf("play:") !== 0; }).map(function (t) {
      var b = actionButton(t, actionLabel(t));
      byToken[t] = b;
      return b;
    });
    fill($("actions"), extra);
    keyed = legal.map(function (t) { return byToken[t]; }).filter(Boolean);
    keyed.forEach(function (b, i) { if (i < 9) b.setAttribute("data-key", String(i + 1)); });

    clockEnd = s.clock_ms === null || s.clock_ms === undefined ? null : Date.now() + s.clock_ms;
    tick();

    var status;
    if (s.failure) status = fmt(T.failure, { message: s.failure });
    else if (s.result) status = resultText(s);
    else if (s.phase === "waiting") status = me === null || me === undefined ? T.watching : T.waiting_friend;
    else if (legal.length) status = T.your_turn;
    else if (s.to_move !== null && s.to_move !== undefined) status = s.to_move === me ? T.your_turn : fmt(T.their_turn, { name: s.names[s.to_move] });
    else status = me === null || me === undefined ? T.watching : T.starting;
    $("status").textContent = status;

    var box = $("result-box");
    box.hidden = !s.result;
    if (s.result) {
      $("result").textContent = resultText(s);
      if (s.replay) { $("replay").href = s.replay; $("replay").hidden = false; }
    }
    fill($("deals"), (s.deals || []).map(function (d) {
      var li = document.createElement("li");
      li.textContent = fmt(d.game_points === 1 ? T.deal_end_one : T.deal_end, { n: d.deal, winner: seatName(d.winner), gp: d.game_points, reason: reason(d.reason),
        p0: d.points[view], p1: d.points[other] });
      return li;
    }));
    fill($("log"), (s.log || []).map(function (e) {
      var li = document.createElement("li");
      var key = e.kind === "draw" && !e.card ? "ev_draw_hidden" : "ev_" + e.kind;
      li.textContent = fmt(T[key] || e.kind, { name: seatName(e.seat), card: e.card ? cardText(e.card) : "",
        points: e.points === undefined ? "" : e.points });
      return li;
    }));
    if (s.phase === "over" && ws) { /* keep the socket: the replay link may still arrive */ }
  }

  function resultText(s) {
    var r = s.result, me = s.seat, view = me === null || me === undefined ? 0 : me;
    var a = r.score[view], b = r.score[1 - view], text;
    if (r.winner === null || r.winner === undefined) text = a + "–" + b;
    else if (me !== null && me !== undefined) text = r.winner === me ? fmt(T.result_win, { a: a, b: b }) : fmt(T.result_loss, { name: s.names[r.winner], a: b, b: a });
    else text = fmt(T.result_watch, { name: s.names[r.winner], a: r.score[r.winner], b: r.score[1 - r.winner] });
    if (r.reason && r.reason !== "target") text += " " + fmt(T.result_by, { reason: reason(r.reason) });
    return text;
  }

  function tick() {
    var c = $("clock");
    if (clockEnd === null) { c.textContent = ""; return; }
    var left = Math.max(0, clockEnd - Date.now()), sec = Math.ceil(left / 1000);
    c.textContent = T.clock + " " + Math.floor(sec / 60) + ":" + ("0" + (sec % 60)).slice(-2);
    c.className = "clock" + (sec <= 10 ? " low" : "");
  }
  setInterval(tick, 250);

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (/^[1-9]$/.test(e.key)) {
      var b = keyed[Number(e.key) - 1];
      if (b) { e.preventDefault(); b.click(); }
      return;
    }
    if (["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"].indexOf(e.key) >= 0 && keyed.length) {
      e.preventDefault();
      var i = keyed.indexOf(document.activeElement);
      var step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : -1;
      i = i < 0 ? (step > 0 ? 0 : keyed.length - 1) : (i + step + keyed.length) % keyed.length;
      keyed[i].focus();
    }
  });

  connect();
})();
