/* arena serve: the live table. Draws the state the server sends (the same picture for both players and a
   spectator, each with what its seat may see) on the report's board (board.css) with its cards (cards.js),
   and sends a choice; the server checks every choice (nothing here decides a game). Plain JavaScript, no
   libraries, nothing from outside. */
(function () {
  "use strict";
  var game = document.getElementById("game");
  if (!game) return;
  var T = JSON.parse(document.getElementById("strings").textContent);
  var code = game.getAttribute("data-code");
  var lang = game.getAttribute("data-lang") || "en";
  var C = arenaCards;
  var TRICK_HOLD_MS = 1500;  /* a finished trick stays on the table this long (unless the next card comes) */
  var PANEL_MS = 6000;  /* the deal-end panel closes by itself after this (or at Continue) */
  var state = null, ws = null, clockEnd = null, tries = 0, keyed = [];
  var retry = null, leaving = false, lostAt = null, absentSince = 0, heard = 0;  /* (absence: see "leaving and coming back") */
  var offline = false;  /* the browser said the network went (an "offline" event), and has not said it is back */
  var seenDeals = null, panelTimer = null, trickKey = null, held = null, heldExpired = false, holdTimer = null;
  var shownEvents = { deal: -1, n: -1 };
  var resultClosed = false, baseTitle = document.title, wasMyTurn = false, beeps = 0, audio = null;
  var confirmDone = null, confirmFocus = null, confirmTokens = [];
  var $ = function (id) { return document.getElementById(id); };

  /* ---------------------------------------------------------------- words */
  function fmt(s, o) {
    return String(s).replace(/\{(\w+)\}/g, function (m, k) { return k in o ? o[k] : m; });
  }
  /* One sentence in the form its subject and number need: key + "_one" when n is 1, + "_you" when the
     subject is the reader (arena.serve.i18n.phrase picks by the same rule). */
  function phrase(key, you, n, o) {
    var name = key + (n === 1 && (key + "_one") in T ? "_one" : "");
    if (you && (name + "_you") in T) name += "_you";
    o = o || {};
    if (n !== undefined && n !== null) o.n = n;
    return fmt(T[name] || key, o);
  }
  function text(c) { return C.text(c, lang); }
  function card(c, extra) { return C.card(c, extra, lang); }
  function mine(seat) { return state && state.seat !== null && state.seat !== undefined && state.seat === seat; }
  function nameOf(seat) { return state.names[seat]; }
  /* A seat as this page names it: "You" for one's own seat, else the player's chosen name (or the default,
     "Player 1" / "Player 2", or the bot's name). The one function every sentence about a seat goes through. */
  function seatName(seat) { return mine(seat) ? T.you_cap : nameOf(seat); }
  window.arenaSeatName = function (seat) { return state ? seatName(seat) : ""; };
  /* text whose scores ("3–2") must not break across lines: each score in a no-wrap span */
  function scoreText(e, t) {
    fill(e, String(t).split(/(\d+–\d+)/).map(function (part, i) { return i % 2 ? el("span", "nowrap", part) : part; }));
  }
  function cap(t) { return t ? t.charAt(0).toUpperCase() + t.slice(1) : t; }
  function reason(r) { return T["r_" + r] || String(r).replace(/-/g, " "); }
  function fill(el, nodes) {
    while (el.firstChild) el.removeChild(el.firstChild);
    nodes.forEach(function (n) { el.appendChild(typeof n === "string" ? document.createTextNode(n) : n); });
  }
  function el(tag, cls, t) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (t !== undefined) e.textContent = t;
    return e;
  }
  function partner(c) { return (c.charAt(0) === "K" ? "Q" : "K") + c.charAt(1); }
  function pair(c) { return text(c.charAt(0) === "K" ? c : partner(c)) + " " + text(c.charAt(0) === "Q" ? c : partner(c)); }

  /* an event of the deal as a sentence, subject first */
  function eventText(e) {
    var you = mine(e.seat), o = { name: nameOf(e.seat), points: e.points, card: e.card ? text(e.card) : "" };
    if (e.kind === "exchange") {  /* the trump card low enough to give for the turned one: 9 (or J) of trumps */
      var rank = (state.stakes || {}).exchange_rank || "9";
      o.low = text(rank + state.trump);
      o.word = T["low_" + rank] || "";
    }
    switch (e.kind) {
      case "marriage": o.cards = pair(e.card); return phrase(e.points ? "ev_marriage" : "ev_marriage_void", you, null, o);
      case "draw": return phrase(e.card ? "ev_draw" : "ev_draw_hidden", you, null, o);
      default: return phrase("ev_" + e.kind, you, null, o);
    }
  }

  /* ---------------------------------------------------------------- the connection */
  function connect() {
    clearTimeout(retry);
    if (ws && ws.readyState <= 1) return;  /* connecting or open already */
    heard = 0;  /* (the silence watch starts with the first message) */
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + "/ws/" + code);
    ws.onopen = function () { tries = 0; lostAt = null; };
    ws.onmessage = function (e) {
      var m = JSON.parse(e.data);
      heard = Date.now();
      if (m.type === "ping") { ws.send(JSON.stringify({ type: "ping" })); return; }  /* the heartbeat */
      if (m.type === "state") {
        // a person's seat is named host, guest or human (the database's names): shown in the page's language
        m.names = (m.names || []).map(function (n, i) {
          return (m.bots && m.bots[i]) || (m.named && m.named[i]) ? n : T["who_" + n] || n;
        });
        state = m; fresh(); hideError(); render(); absence(m);
        game.setAttribute("data-version", String(Number(game.getAttribute("data-version") || 0) + 1));
      }
      else if (m.type === "error") { showError(m); }
    };
    ws.onclose = lost;
  }
  function lost() {
    if (state && state.phase === "over") return;
    if (leaving) return;  /* the page is going away (pagehide): pageshow connects again */
    $("status").textContent = T.connection_lost;
    if (lostAt === null) lostAt = Date.now();
    absenceTick();
    tries += 1;
    if (!offline) retry = setTimeout(connect, Math.min(5000, 300 * tries));  /* (offline: "online" connects) */
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

  /* ---------------------------------------------------------------- moves */
  function actionButton(token, label, cls, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    if (cls) b.className = cls;
    b.setAttribute("data-action", token);
    if (typeof label === "string") b.textContent = label; else b.appendChild(label);
    b.addEventListener("click", onClick || function () { send(token); });
    return b;
  }
  /* Every button names what it does with which cards: "Lead Q♣, announce 40", "Give 9♦ for A♦",
     "Declare 66 (you have 34: below 66 the opponent scores 2)". */
  function actionLabel(token) {
    var kind = token.split(":")[0], c = token.split(":")[1], st = state.stakes || {};
    if (kind === "marry") {  /* what it would score now: a void one (no trick yet, in Sixty-Six) says so */
      var points = (state.values || {})[token];
      var value = c.charAt(1) === state.trump ? st.trump_marriage_points : st.marriage_points;
      return fmt(points === 0 ? T.marry_void : T.marry, { card: text(c), cards: pair(c), points: points, value: value });
    }
    if (kind === "exchange") {
      var rank = st.exchange_rank || "9";
      return fmt(T["exchange_" + rank] || T.exchange, { low: text(rank + state.trump), card: state.trump_card ? text(state.trump_card) : "" });
    }
    if (kind === "declare") {
      var d = declaring();
      return fmt(d.safe ? T.declare : d.tricks ? T.declare_low : T.declare_no_trick, { n: d.points, gp: st.wrong_declaration });
    }
    return T[kind] || token;
  }
  /* a declaration wins only with a trick and 66 (the engine's rule, Deal._declare); else it gives the deal away */
  function declaring() {
    var me = state.seat, pts = state.points ? state.points[me] : 0, tricks = state.tricks ? state.tricks[me] : 0;
    return { points: pts, tricks: tricks, safe: tricks > 0 && pts >= 66 };
  }
  /* what a click on an action does: an action that ends or risks the deal asks once first */
  function actionClick(token) {
    var kind = token.split(":")[0], st = state.stakes || {};
    if (kind === "declare" && !declaring().safe) {
      var d = declaring();
      return function () {
        ask(fmt(d.tricks ? T.confirm_declare : T.confirm_declare_no_trick, { n: d.points, gp: st.wrong_declaration }),
            T.confirm_declare_yes, function () { send(token); }, null, null, [token]);
      };
    }
    if (kind === "close") {
      return function () {
        ask(fmt(T.confirm_close, { gp: st.failed_close }), T.confirm_close_yes, function () { send(token); }, null, null, [token]);
      };
    }
    return null;
  }
  /* the in-page question: a small dialog (Escape or Cancel keeps playing); `alt`: a second choice */
  function ask(question, yes, onYes, alt, onAlt, tokens) {
    var box = $("confirm");
    confirmTokens = tokens || [];
    $("confirm-text").textContent = question;
    $("confirm-yes").textContent = yes;
    $("confirm-alt").hidden = !alt;
    $("confirm-alt").textContent = alt || "";
    confirmDone = { yes: onYes, alt: onAlt };
    confirmFocus = document.activeElement;
    box.hidden = false;
    $("confirm-no").focus();
  }
  function answer(which) {
    var done = confirmDone;
    confirmDone = null;
    $("confirm").hidden = true;
    if (confirmFocus && confirmFocus.focus && document.body.contains(confirmFocus)) confirmFocus.focus();
    if (done && which && done[which]) done[which]();
  }
  $("confirm-yes").addEventListener("click", function () { answer("yes"); });
  $("confirm-alt").addEventListener("click", function () { answer("alt"); });
  $("confirm-no").addEventListener("click", function () { answer(null); });

  /* ---------------------------------------------------------------- the table */
  function played(p, extra, first) {
    var box = el("span", "played");
    box.appendChild(card(p[1], extra));
    box.appendChild(el("span", "who", mine(p[0]) ? T.you_cap : nameOf(p[0])));
    if (first) box.title = T.led;
    return box;
  }
  function trickNodes(t, won, cls) {
    return t.map(function (p, i) {
      var box = played(p, won !== undefined && p[0] === won ? "win" : "", i === 0);
      if (cls) box.classList.add(cls);
      return box;
    });
  }
  function seatHand(seat, s) {  /* a hand the page may not see: its size as backs, its known cards face up */
    var known = seat === s.seat ? [] : (s.known || []);
    var nodes = known.map(function (c) { return card(c, "known"); });
    for (var i = known.length; i < (s.cards_held ? s.cards_held[seat] : 0); i++) nodes.push(C.back());
    return nodes;
  }
  function stats(seat, s) {
    var pts = s.points ? s.points[seat] : 0, pend = s.pending ? s.pending[seat] : 0;
    var married = (s.log || []).filter(function (e) { return e.kind === "marriage" && e.seat === seat; });
    var out = [el("span", "", T.points + " "), el("strong", "", String(pts) + (pend ? " (+" + pend + " " + T.pending + ")" : "")),
      el("span", "", " " + T.tricks + " "), el("strong", "", String(s.tricks ? s.tricks[seat] : 0))];
    if (married.length) {
      out.push(el("span", "", " " + T.marriages + " "));
      married.forEach(function (e) { out.push(C.suit(e.card.charAt(1), lang)); });
    }
    return out;
  }

  function render() {
    var s = state, me = s.seat, player = me !== null && me !== undefined;
    var view = player ? me : 0, other = 1 - view, legal = s.legal || [], over = !!s.result;
    var hint = document.querySelector(".hint");
    if (hint) hint.hidden = !player;
    $("watching").hidden = player;  /* the status says whose turn it is: a spectator is told once more it watches */

    /* who sits where, who leads, who is to play */
    $("name-me").textContent = seatName(view);
    $("name-them").textContent = nameOf(other);
    [[view, "seat-me"], [other, "seat-them"]].forEach(function (p) {
      var box = $(p[1]);
      box.classList.toggle("to-move", !over && s.to_move === p[0] && s.phase === "playing");
      box.classList.toggle("leads", !over && s.deal > 0 && s.leader === p[0] && s.to_move !== null && s.to_move !== undefined);
    });
    $("away-them").textContent = s.present && !s.present[other] && !s.waiting[other] ? T.present_no : "";
    fill($("stat-me"), stats(view, s));
    fill($("stat-them"), stats(other, s));
    fill($("hand-them"), seatHand(other, s));

    /* the piles */
    var closed = s.closed_by !== null && s.closed_by !== undefined;
    fill($("talon"), s.talon ? [C.back(s.talon, phrase("talon_cards", false, s.talon))] : s.talon === 0 ? [T.talon_empty] : []);
    /* (Bulgarian bends "you" after a preposition: "от вас", not "от вие") */
    $("closed").textContent = closed ? phrase("talon_closed", mine(s.closed_by), null, { name: nameOf(s.closed_by) }) : "";
    fill($("trump"), s.trump_card ? [card(s.trump_card, closed ? "down" : "")] : s.trump ? [C.suit(s.trump, lang)] : []);
    var key = s.deal + ":" + (s.tricks ? s.tricks[0] + s.tricks[1] : 0);
    if (trickKey !== null && key !== trickKey && s.last_trick && s.tricks[0] + s.tricks[1] > 0) {
      held = s.last_trick;  /* the trick just taken stays in view a moment, its winner's card marked */
      heldExpired = false;
      clearTimeout(holdTimer);
      holdTimer = setTimeout(function () { heldExpired = true; if (state) render(); }, TRICK_HOLD_MS);
    }
    if (trickKey !== null && trickKey.split(":")[0] !== String(s.deal)) {
      held = null;  /* a new deal starts on a bare table: the last deal's trick is in the deal-end panel */
      clearTimeout(holdTimer);
    }
    trickKey = key;
    game.setAttribute("data-deal", String(s.deal || 0));
    var onTable = [];
    if (s.table && s.table.length) {
      onTable = trickNodes(s.table);
      /* the winner of the trick leads again: the trick it took stays beside its lead, dimmed, until the answer,
         so the card that won it is seen, not only the new one (a bot leads at once, before the trick's moment
         on the table is over); beside one's own lead only while that moment lasts */
      var lead = s.table[0][0];
      if (held && s.table.length === 1 && lead === held.winner && (!mine(lead) || !heldExpired || held.beside)) {
        held.beside = true;
        onTable = trickNodes(held.cards, held.winner, "taken").concat(onTable);
      }
    } else if (held && !heldExpired) {
      onTable = trickNodes(held.cards, held.winner);
    }
    fill($("table"), onTable);
    var last = s.last_trick;
    fill($("last-trick"), last ? trickNodes(last.cards, last.winner).concat([el("span", "small",
      phrase("took_it", mine(last.winner), null, { name: nameOf(last.winner), points: last.points }))]) : [T.no_trick]);
    var score = s.score || [0, 0];
    scoreText($("match-score"), T.match + " " + fmt(T.score_line, { a: seatName(view), sa: score[view], sb: score[other],
      b: nameOf(other) }) + (s.target ? " (" + fmt(T.target, { n: s.target }) + ")" : "") + (s.deal ? " · " + fmt(T.deal, { n: s.deal }) : ""));

    /* my hand and my moves */
    var hand = player ? (s.hand || []).map(function (c) {
      var token = "play:" + c;
      if (legal.indexOf(token) >= 0) {
        var marry = "marry:" + c, onClick = null;
        if (legal.indexOf(marry) >= 0) {  /* the player chooses the card of the marriage by tapping it */
          onClick = function () {
            var st = s.stakes || {}, value = c.charAt(1) === s.trump ? st.trump_marriage_points : st.marriage_points;
            ask(fmt(T.marry_choice, { card: text(c), value: value }), actionLabel(marry), function () { send(marry); },
                fmt(T.marry_plain, { card: text(c) }), function () { send(token); }, [marry, token]);
          };
        }
        var b = actionButton(token, card(c), "cardbutton", onClick);
        b.setAttribute("aria-label", fmt(T.play, { card: text(c) }));
        return b;
      }
      return card(c, legal.length ? "unplayable" : "");
    }) : seatHand(view, s);
    fill($("hand"), hand);
    var extra = legal.filter(function (t) { return t.indexOf("play:") !== 0; }).map(function (t) {
      return actionButton(t, actionLabel(t), t.indexOf("marry:") === 0 ? "marry" : "", actionClick(t));
    });
    fill($("actions"), extra);
    /* a question about a move that is no longer on offer (the clock ran out, the match ended) goes away */
    if (!$("confirm").hidden && !confirmTokens.every(function (t) { return legal.indexOf(t) >= 0; })) answer(null);
    /* numbered in reading order, the hand's cards first, so the numbers run 1, 2, 3 across the screen */
    keyed = Array.prototype.slice.call($("hand").querySelectorAll("button[data-action]")).concat(extra);
    keyed.forEach(function (b, i) { if (i < 9) b.setAttribute("data-key", String(i + 1)); });

    clockEnd = s.clock_ms === null || s.clock_ms === undefined ? null : Date.now() + s.clock_ms;
    tick();

    var status;
    if (s.failure) status = fmt(T.failure, { message: s.failure });
    else if (over) status = resultText(s);
    else if (s.phase === "waiting") status = player ? T.waiting_friend : T.watching;
    else if (legal.length) status = T.your_turn;
    else if (s.to_move !== null && s.to_move !== undefined && s.deal) status = mine(s.to_move) ? T.your_turn : fmt(T.their_turn, { name: nameOf(s.to_move) });
    else status = T.starting;  /* (a spectator is told it watches by #watching) */
    scoreText($("status"), status);
    turnSignal(legal.length > 0);
    if ($("share")) $("share").hidden = s.phase !== "waiting";
    var lead = $("your-move");
    if (lead) lead.textContent = legal.length ? (s.table && s.table.length ? fmt(T.your_answer, { name: nameOf(other) }) : T.your_lead) : "";

    announce(s);
    dealPanel(s);
    matchPanel(s);

    fill($("deals"), (s.deals || []).map(function (d) {
      var li = el("li", "");
      scoreText(li, dealLine(d));
      return li;
    }));
    fill($("log"), (s.log || []).map(function (e) { return el("li", "", eventText(e)); }));
  }

  /* what a player must not miss: a marriage, an exchange, a close, a declaration (the newest one stays) */
  function announce(s) {
    var events = s.log || [], box = $("announce");
    if (s.deal !== shownEvents.deal) {
      var before = shownEvents.deal, deals = s.deals || [], ended = deals[deals.length - 1];
      shownEvents = { deal: s.deal, n: -1 };
      box.textContent = "";
      box.removeAttribute("data-kind");
      /* a declaration (or a marriage that reached 66) ends its deal, and the next deal's state may be the first
         this page gets: the deal's summary keeps it, so it is announced all the same */
      if (before > 0 && ended && ended.deal === before && ended.ended_by) showEvent(ended.ended_by);
    }
    events.forEach(function (e) {
      if (e.n <= shownEvents.n) return;
      shownEvents.n = e.n;
      if (e.kind === "marriage" || e.kind === "exchange" || e.kind === "close" || e.kind === "declare") showEvent(e);
    });
  }
  function showEvent(e) {
    var box = $("announce");
    box.textContent = eventText(e);
    box.setAttribute("data-kind", e.kind);
    box.setAttribute("data-seat", String(e.seat));
    box.classList.remove("fresh");
    void box.offsetWidth;  /* restart the highlight */
    box.classList.add("fresh");
  }

  /* why a deal ended as it did: the engine's reason (a failed close names its closer), and why the game points
     are more than 1 when they are (the engine's game_points_why: the loser took no trick, had under 33, ...) */
  function dealWhy(d) {
    var closer = d.closed_by;
    var who = d.reason === "wrong-declaration" ? 1 - d.winner : d.winner;  /* the subject of the reason */
    var why = d.reason === "failed-close" && closer !== null && closer !== undefined
      ? phrase("why_failed_close", mine(closer), null, { name: nameOf(closer) })
      : ("why_" + d.reason) in T ? phrase("why_" + d.reason, mine(who), null, { name: nameOf(who) }) : reason(d.reason);
    var loser = 1 - d.winner;
    if (d.why_points) why += "; " + phrase("gp_" + d.why_points, mine(loser), null, { name: nameOf(loser), n: d.schneider_below });
    return why;
  }

  function dealLine(d) {
    var view = mine(1) ? 1 : 0, other = 1 - view;
    var won = phrase("deal_won", mine(d.winner), d.game_points, { name: nameOf(d.winner), gp: d.game_points });
    return fmt(T.deal_line, { n: d.deal, won: won, reason: dealWhy(d), a: seatName(view),
      pa: d.points[view], b: nameOf(other), pb: d.points[other] });
  }

  /* the deal-end panel: both names, card points, game points won and why, the last trick; it stays until
     Continue or a few seconds (the table goes on underneath) */
  function dealPanel(s) {
    var deals = s.deals || [];
    if (seenDeals === null) seenDeals = deals.length;  /* a page opened later does not replay old news */
    if (deals.length <= seenDeals) return;
    seenDeals = deals.length;
    if (s.result) return;  /* the match-end panel says it */
    var d = deals[deals.length - 1];
    fillDeal(d);
    $("deal-panel").hidden = false;
    clearTimeout(panelTimer);
    panelTimer = setTimeout(closePanel, PANEL_MS);
  }
  function fillDeal(d) {
    $("deal-title").textContent = fmt(T.deal_over, { n: d.deal });
    $("deal-won").textContent = phrase("deal_won", mine(d.winner), d.game_points, { name: nameOf(d.winner), gp: d.game_points });
    $("deal-why").textContent = cap(fmt(T.why, { reason: dealWhy(d) }));
    var view = mine(1) ? 1 : 0;
    [view, 1 - view].forEach(function (seat, col) {
      $("deal-name" + col).textContent = seatName(seat);
      $("deal-points" + col).textContent = String(d.points[seat]);
      $("deal-tricks" + col).textContent = String(d.tricks[seat]);
      $("deal-score" + col).textContent = String(d.score[seat]);
    });
    fill($("deal-last"), d.last_trick ? trickNodes(d.last_trick.cards, d.last_trick.winner) : []);
  }
  function closePanel() {
    clearTimeout(panelTimer);
    $("deal-panel").hidden = true;
  }
  $("deal-continue").addEventListener("click", closePanel);
  $("deal-close").addEventListener("click", closePanel);
  /* the match-end panel closes too (the deals and the log beneath stay), and opens again from its button */
  function closeResult() {
    if ($("result-box").hidden) return false;
    resultClosed = true;
    $("result-box").hidden = true;
    $("show-result").hidden = false;
    $("show-result").focus();
    return true;
  }
  $("result-close").addEventListener("click", closeResult);
  $("show-result").addEventListener("click", function () {
    resultClosed = false;
    $("show-result").hidden = true;
    if (state) render();
    $("result-close").focus();
  });

  /* the match-end panel: the result, the last deal, a rematch and the replay */
  function matchPanel(s) {
    var box = $("result-box");
    box.hidden = !s.result || resultClosed;
    $("show-result").hidden = !(s.result && resultClosed);
    if (!s.result) return;
    closePanel();
    scoreText($("result"), resultText(s));
    var deals = s.deals || [];
    var d = deals.length ? deals[deals.length - 1] : null;
    scoreText($("result-deal"), d ? dealLine(d) : "");
    fill($("result-last"), d && d.last_trick ? trickNodes(d.last_trick.cards, d.last_trick.winner) : []);
    if (s.replay) {  /* the replay viewer speaks the page's language (?lang=) and links back here (?from=play) */
      $("replay").href = s.replay.replace("#", "?from=play" + (lang === "en" ? "" : "&lang=" + lang) + "#");
      $("replay").hidden = false;
    }
    var offer = $("rematch-offer");
    offer.hidden = !(s.rematch && !s.quick);
    if (s.rematch && !s.quick) {
      var a = el("a", "", T.rematch_join);
      a.href = "/room/" + s.rematch;
      a.id = "rematch-join";
      var by = s.seat === null || s.seat === undefined ? 0 : 1 - s.seat;
      fill(offer, [fmt(T.rematch_offer, { name: nameOf(by) }) + " ", a]);
      $("rematch-form").hidden = true;
    }
  }

  function resultText(s) {
    if (s.left) return leftText(s);
    var r = s.result, me = s.seat, player = me !== null && me !== undefined, view = player ? me : 0;
    var a = r.score[view], b = r.score[1 - view], t;
    if (r.winner === null || r.winner === undefined) t = a + "–" + b;
    else if (player) t = r.winner === me ? fmt(T.result_win, { a: a, b: b }) : fmt(T.result_loss, { name: nameOf(r.winner), a: b, b: a });
    else t = fmt(T.result_watch, { name: nameOf(r.winner), a: r.score[r.winner], b: r.score[1 - r.winner] });
    if (r.reason && r.reason !== "target") t += " " + fmt(T.result_by, { reason: reason(r.reason) });
    return t;
  }

  function tick() {
    var c = $("clock");
    if (clockEnd === null) { c.textContent = ""; return; }
    var left = Math.max(0, clockEnd - Date.now()), sec = Math.ceil(left / 1000);
    c.textContent = T.clock + " " + Math.floor(sec / 60) + ":" + ("0" + (sec % 60)).slice(-2);
    c.className = "clock" + (sec <= 10 ? " low" : "");
  }
  setInterval(tick, 250);

  /* your turn: the tab's title says so, and a short tone sounds (WebAudio, no file) unless switched off */
  function soundOn() { try { return localStorage.getItem("arena.sound") !== "off"; } catch (e) { return true; } }
  function showSound() {
    var b = $("sound"), on = soundOn();
    b.setAttribute("aria-pressed", on ? "true" : "false");
    b.textContent = b.getAttribute(on ? "data-on" : "data-off");
  }
  $("sound").addEventListener("click", function () {
    try { localStorage.setItem("arena.sound", soundOn() ? "off" : "on"); } catch (e) { /* private mode */ }
    showSound();
  });
  showSound();
  function unlockAudio() {  /* a browser lets a page sound only after the person touched it */
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!audio && Ctx) { try { audio = new Ctx(); } catch (e) { audio = null; } }
    if (audio && audio.state === "suspended") audio.resume();
  }
  document.addEventListener("pointerdown", unlockAudio);
  document.addEventListener("keydown", unlockAudio);
  function beep() {
    beeps += 1;
    game.setAttribute("data-beeps", String(beeps));
    if (!audio) return;
    var t = audio.currentTime, osc = audio.createOscillator(), gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.setValueAtTime(660, t);
    osc.frequency.setValueAtTime(880, t + 0.09);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.2, t + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.22);
    osc.connect(gain);
    gain.connect(audio.destination);
    osc.start(t);
    osc.stop(t + 0.25);
  }
  function turnSignal(myTurn) {
    document.title = myTurn ? T.title_turn + " — " + baseTitle : baseTitle;
    if (myTurn && !wasMyTurn && soundOn()) beep();
    wasMyTurn = myTurn;
  }
  if ($("copy-link")) $("copy-link").addEventListener("click", function () {
    var b = this, link = $("room-link").textContent;
    function done() { b.textContent = b.getAttribute("data-done"); }
    function fallback() {
      var range = document.createRange();
      range.selectNodeContents($("room-link"));
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      try { if (document.execCommand("copy")) done(); } catch (e) { /* selected: the person copies it */ }
    }
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(link).then(done, fallback);
    else fallback();
  });

  $("show-last").addEventListener("click", function () {
    var box = $("last-trick"), open = box.hidden;
    box.hidden = !open;
    this.setAttribute("aria-expanded", open ? "true" : "false");
  });

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (e.key === "Escape") {  /* the question first, then the deal-end panel, then the match-end panel */
      if (!$("confirm").hidden) answer(null);
      else if (!$("deal-panel").hidden) closePanel();
      else closeResult();
      return;
    }
    if (!$("confirm").hidden) {  /* no move behind the question's back; Tab stays among its buttons */
      if (e.key === "Tab") {
        var bs = Array.prototype.filter.call($("confirm").querySelectorAll("button"), function (b) { return !b.hidden; });
        var at = bs.indexOf(document.activeElement);
        e.preventDefault();
        bs[(at + (e.shiftKey ? bs.length - 1 : 1)) % bs.length].focus();
      }
      return;
    }
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

  /* ---------------------------------------------------------------- leaving and coming back
     The server counts a seat absent from when its last page closed, and decides its forfeit itself at the
     leave timeout (state.left): every page shows the absent seat's countdown, and each person's move clock.
     A page that goes away (another page in this tab, a closed tab) closes its connection at once; one that
     comes back (Back, even from the back/forward cache, a reload, a new tab, the network back) reconnects at
     once, and until the server's fresh state arrives it shows the old table as stale, never as playable. */
  function mmss(ms) {
    var sec = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(sec / 60) + ":" + ("0" + (sec % 60)).slice(-2);
  }
  function absence(s) {
    absentSince = Date.now();
    var player = s.seat !== null && s.seat !== undefined;
    if (!player && s.clocks) {  /* a spectator sees the near seat's clock where a player sees their own */
      clockEnd = s.clocks[0] === null || s.clocks[0] === undefined ? null : Date.now() + s.clocks[0];
      tick();
    }
    absenceTick();
  }
  function absenceTick() {
    var s = state, box = $("absence"), them = $("clock-them");
    if (!s || !box) return;
    var gone = Date.now() - absentSince, player = s.seat !== null && s.seat !== undefined;
    if (lostAt !== null && player && s.phase === "playing" && !s.result) {  /* this page's own connection */
      $("status").textContent = fmt(T.connection_lost_forfeit, { time: mmss(s.leave_s * 1000 - (Date.now() - lostAt)) });
    }
    var lines = [];
    (s.away_ms || []).forEach(function (ms, seat) {
      if (ms !== null && ms !== undefined && !mine(seat) && !s.result) {
        lines.push(fmt(T.away_countdown, { name: nameOf(seat), time: mmss(ms - gone) }));
      }
    });
    box.textContent = lines.join(" · ");
    box.hidden = !lines.length;
    var other = 1 - (player ? s.seat : 0), ms = s.clocks ? s.clocks[other] : null;
    var has = ms !== null && ms !== undefined && !s.result;
    them.textContent = has ? mmss(ms - gone) : "";
    them.title = has ? fmt(T.clock_them, { name: nameOf(other) }) : "";
    them.className = "clock" + (has && ms - gone <= 10000 ? " low" : "");
  }
  setInterval(absenceTick, 250);
  function leftText(s) {  /* who left, for how long, and who wins, in words */
    var who = s.left.seat, o = { name: nameOf(who), n: s.left.seconds, winner: nameOf(1 - who) };
    return fmt(mine(who) ? T.left_forfeit_you : mine(1 - who) ? T.left_forfeit_won : T.left_forfeit, o);
  }
  function fresh() {
    leaving = false;
    lostAt = null;
    game.classList.remove("stale");
  }
  function goStale() {  /* the table on screen may be old news: nothing on it can be played until the server speaks */
    game.classList.add("stale");
    fill($("actions"), []);
    Array.prototype.forEach.call(document.querySelectorAll("#hand button[data-action]"), function (b) { b.disabled = true; });
    keyed = [];
  }
  window.addEventListener("pagehide", function () {
    leaving = true;
    goStale();
    $("status").textContent = T.reconnecting;  /* what a page restored from the cache shows first */
    if (ws) {
      ws.onclose = ws.onmessage = null;  /* (its close must not be news when the page is shown again) */
      ws.close();
    }
  });
  window.addEventListener("pageshow", function (e) {
    if (!e.persisted) return;  /* a page restored from the back/forward cache: its table is old */
    leaving = false;
    offline = false;  /* (a frozen page hears no "online": it tries again as if it had) */
    goStale();
    $("status").textContent = T.reconnecting;
    tries = 0;
    connect();
  });
  window.addEventListener("online", function () { offline = false; tries = 0; connect(); });
  function drop() {  /* a connection that cannot be trusted: let it go, and reconnect with a new one */
    /* (one already closing counts too: its close can wait on a handshake the dead network never completes) */
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    var old = ws;
    old.onclose = old.onmessage = null;
    try { old.close(); } catch (e) { /* closing a dead socket */ }
    lost();
  }
  /* (the event, not navigator.onLine, which can be false from the start where only loopback is up) */
  window.addEventListener("offline", function () { offline = true; drop(); });
  /* the server pings a few times within its silence limit: hearing nothing for that long, the network is gone */
  setInterval(function () {
    if (state && state.silent_s && heard && Date.now() - heard > state.silent_s * 1000) { heard = 0; drop(); }
  }, 500);

  connect();
})();
