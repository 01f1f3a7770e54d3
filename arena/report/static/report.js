/* arena report: sortable tables, the matches filter, the replay viewer and the side-by-side pair viewer.
   Vanilla JS, no network. A match's replay and transcripts come from its data file, data/<id>.js, loaded by
   a <script src> element (which works from file://, where fetch is blocked): it calls arenaData(id, base64)
   with its JSON zlib-compressed, which the browser's DecompressionStream inflates. Everything a bot wrote
   goes in through textContent only. */
var arenaData = (function () {
  "use strict";
  var loaded = {};
  function arenaData(id, b64) { loaded[id] = b64; }
  arenaData.get = function (id) {
    if (!Object.prototype.hasOwnProperty.call(loaded, id)) {
      return Promise.reject(new Error("its data file (data/….js) is missing"));
    }
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot inflate the data (no DecompressionStream)"));
    }
    var bin = atob(loaded[id]), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  };
  return arenaData;
})();

/* data/matches.js: the rows of the matches list */
function arenaMatches(rows) { arenaMatches.rows = rows; }

(function () {
  "use strict";

  /* ---------------------------------------------------------------- sortable tables */
  function sortKey(cell, numeric) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    if (raw === "" || raw === "\u2013") return null;
    var v = parseFloat(raw.replace("\u2212", "-").replace("%", ""));
    return isNaN(v) ? null : v;
  }

  function makeSortable(table) {
    var head = table.tHead && table.tHead.rows[0];
    var body = table.tBodies[0];
    if (!head || !body) return;
    Array.prototype.forEach.call(body.rows, function (row, i) { row.setAttribute("data-order", i); });
    Array.prototype.forEach.call(head.cells, function (th, col) {
      var button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", function () {
        var numeric = th.getAttribute("data-type") === "num";
        var first = th.getAttribute("data-first") || (numeric ? "desc" : "asc");
        var current = th.getAttribute("aria-sort");
        var dir;
        if (current === "ascending") dir = "descending";
        else if (current === "descending") dir = "ascending";
        else dir = first === "asc" ? "ascending" : "descending";
        var sign = dir === "ascending" ? 1 : -1;
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var ka = sortKey(a.cells[col], numeric), kb = sortKey(b.cells[col], numeric);
          if (ka === null && kb !== null) return 1;   /* empty values last, either direction */
          if (kb === null && ka !== null) return -1;
          if (ka !== null && kb !== null && ka !== kb) return (ka < kb ? -1 : 1) * sign;
          return a.getAttribute("data-order") - b.getAttribute("data-order");
        });
        rows.forEach(function (r) { body.appendChild(r); });
        Array.prototype.forEach.call(head.cells, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
      });
    });
  }

  /* ---------------------------------------------------------------- cards */
  var SUIT = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  var SUIT_NAME = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };

  function cardEl(code, extra) {
    var span = document.createElement("span");
    var rank = code.charAt(0) === "T" ? "10" : code.charAt(0);
    var suit = code.charAt(1);
    span.className = "card" + (suit === "h" || suit === "d" ? " red" : "") + (extra ? " " + extra : "");
    span.textContent = rank + (SUIT[suit] || "?");
    span.title = rank + " of " + (SUIT_NAME[suit] || "?");
    return span;
  }

  function suitEl(suit) {
    var span = document.createElement("span");
    span.className = "card" + (suit === "h" || suit === "d" ? " red" : "");
    span.textContent = SUIT[suit] || "?";
    span.title = SUIT_NAME[suit] || "?";
    return span;
  }

  function fill(el, nodes) {
    while (el.firstChild) el.removeChild(el.firstChild);
    nodes.forEach(function (n) { el.appendChild(typeof n === "string" ? document.createTextNode(n) : n); });
  }

  function handNodes(text) {
    if (!text) return [document.createTextNode("\u2013")];
    return text.split(" ").map(function (c) { return cardEl(c); });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }

  /* A think time as the report prints it elsewhere: "12.3 ms", "1.25 s". */
  function fmtMs(v) {
    if (v >= 1000) return (v / 1000).toFixed(2) + " s";
    return String(parseFloat(v.toPrecision(3))) + " ms";
  }

  /* ---------------------------------------------------------------- what a bot said at a step */
  function sayNodes(entries) {
    var out = [];
    entries.forEach(function (e) {
      if (typeof e.ms === "number") {
        var t = el("div", "think", "thought ");
        t.appendChild(el("strong", "", fmtMs(e.ms)));
        out.push(t);
      }
      (e.notes || []).forEach(function (n) { out.push(el("div", "say-note term", n)); });
      if (typeof e.reply === "string") {
        var r = el("div", "say-reply", "answered ");
        r.appendChild(el("code", "", e.reply));
        out.push(r);
      }
      if (e.info && e.info.length) {
        var ul = el("ul", "info");
        e.info.forEach(function (line) { ul.appendChild(el("li", "", line)); });
        if (e.more) ul.appendChild(el("li", "muted", "\u2026 and " + e.more + " more info lines (see the transcript)"));
        out.push(ul);
      }
    });
    return out;
  }

  /* ---------------------------------------------------------------- one board */
  /* A replay board into `slot`: the step's words, both seats (hands, figures, what the bot said and how
     long it thought), the talon, the trump and the trick; drawStep fills the elements whose ids start
     with `p`. Built here rather than written into every page: the pages stay small. */
  function h(tag, attrs, kids) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k];
      else e.setAttribute(k === "cls" ? "class" : k, attrs[k]);
    });
    (kids || []).forEach(function (k) { e.appendChild(typeof k === "string" ? document.createTextNode(k) : k); });
    return e;
  }

  function buildBoard(slot, p, bots) {
    function seat(s) {
      function stat(name, id, first) {
        return h("span", {}, [name + " ", h("strong", { id: p + id + s, text: first })]);
      }
      return h("div", { cls: "seat", id: p + "seat" + s, "data-seat": String(s) }, [
        h("div", { cls: "seat-head" }, [h("span", { cls: "seat-name", text: bots[s] }), " ",
          h("span", { cls: "muted", text: "seat " + s }), " ", h("span", { cls: "to-move-badge", text: "to move" })]),
        h("div", { cls: "hand", id: p + "hand" + s, "aria-label": bots[s] + "'s hand" }),
        h("div", { cls: "seat-stats" }, [stat("points", "points", "0"), " ", stat("tricks", "tricks", "0"), " ",
          stat("marriages", "marriages", "\u2013"), " ", stat("match", "score", "0")]),
        h("div", { cls: "say", id: p + "say" + s,
          "aria-label": "what " + bots[s] + " said and how long it thought at this step" })
      ]);
    }
    function pile(name, id, cls) {
      return h("div", { cls: "pile" + (cls ? " " + cls : "") }, [h("div", { cls: "muted small", text: name }),
        h("div", { id: p + id, cls: id === "table" ? "trick" : id === "talon" ? "talon" : "" })]);
    }
    var talon = pile("talon", "talon");
    talon.appendChild(h("div", { id: p + "closed", cls: "small" }));
    fill(slot, [
      h("p", { id: p + "label", cls: "step-label", "aria-live": "polite" }),
      h("div", { cls: "board" }, [seat(1), h("div", { cls: "middle" }, [talon, pile("trump", "trump"),
        pile("on the table", "table", "trick-pile")]), seat(0)]),
      h("p", { cls: "dealt small" }, [h("span", { cls: "muted", text: "As dealt:" }), " ", h("span", { id: p + "dealt0" }),
        " ", h("span", { cls: "muted", text: "(" + bots[0] + ")" }), " \u00b7 ", h("span", { id: p + "dealt1" }), " ",
        h("span", { cls: "muted", text: "(" + bots[1] + ")" })])
    ]);
  }

  /* ---------------------------------------------------------------- one board at one step */
  /* Fills the elements whose ids start with `p` (see templates/_board.html) with step `at` of `data`. */
  function drawStep(p, data, at) {
    function $(id) { return document.getElementById(p + id); }
    var s = data.steps[at], deal = data.deals[s.deal], bots = data.bots;
    fill($("label"), s.label.map(function (part) {
      return typeof part === "string" ? document.createTextNode(part) : cardEl(part[0]);
    }));
    [0, 1].forEach(function (seat) {
      fill($("hand" + seat), handNodes(s.hands[seat]));
      var pts = String(s.points[seat]);
      if (s.pending && s.pending[seat]) pts += " (+" + s.pending[seat] + " pending)";
      $("points" + seat).textContent = pts;
      $("tricks" + seat).textContent = String(s.tricks[seat]);
      var mine = (s.marriages || []).filter(function (m) { return m[0] === seat; });
      fill($("marriages" + seat), mine.length ? mine.map(function (m) { return suitEl(m[1]); }) : ["\u2013"]);
      $("score" + seat).textContent = String(s.score[seat]);
      $("seat" + seat).classList.toggle("to-move", s.move === seat);
      fill($("dealt" + seat), handNodes(deal.dealt[seat]));
      var said = (s.say || []).filter(function (e) { return e.seat === seat; });
      var box = $("say" + seat);
      fill(box, sayNodes(said));
      box.classList.toggle("empty", !said.length);
    });
    var talon = [];
    if (s.talon > 0) {
      var back = el("span", "card back", String(s.talon));
      back.title = s.talon + " cards in the talon";
      talon.push(back);
    } else {
      talon.push("empty");
    }
    fill($("talon"), talon);
    var closed = typeof s.closed === "number";
    $("closed").textContent = closed ? "closed by " + bots[s.closed] : "";
    var trump = [];
    if (s.turned) trump.push(cardEl(s.turned, closed ? "down" : ""));
    else if (deal.trump) trump.push(suitEl(deal.trump));
    fill($("trump"), trump);
    var table = [], onTable = s.table || [];
    onTable.forEach(function (t) {
      table.push(el("span", "who", bots[t[0]]));
      table.push(cardEl(t[1], s.won === t[0] && onTable.length === 2 ? "win" : ""));
      table.push(" ");
    });
    if (!table.length) table.push("\u2013");
    fill($("table"), table);
  }

  /* ---------------------------------------------------------------- links to a step: #d3s7 */
  var STEP_HASH = /^#d(\d+)s(\d+)$/;
  var written = null;  /* the hash this script set last (a hashchange it caused is not a new link) */

  function readStepHash() {
    var m = STEP_HASH.exec(window.location.hash);
    return m ? { deal: parseInt(m[1], 10) - 1, step: parseInt(m[2], 10) - 1 } : null;
  }

  function writeHash(h) {
    if (window.location.hash === h || (!h && !window.location.hash)) return;
    written = h;
    try {
      window.history.replaceState(null, "", h || window.location.href.split("#")[0]);
    } catch (err) {
      window.location.replace(h || "#");  /* no history entry per step either way */
    }
  }

  function stepKeys(back, forward, prevDeal, nextDeal) {
    document.addEventListener("keydown", function (e) {
      /* Left / Right step, Shift+Left / Shift+Right jump a deal; other keys keep scrolling the page. */
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if (e.key === "ArrowLeft") { if (e.shiftKey) prevDeal(); else back(); e.preventDefault(); }
      else if (e.key === "ArrowRight") { if (e.shiftKey) nextDeal(); else forward(); e.preventDefault(); }
    });
  }

  function onStepLink(go) {
    window.addEventListener("hashchange", function () {
      if (window.location.hash === written) return;
      go(true);
    });
  }

  /* ---------------------------------------------------------------- replay (match page) */
  function Replay(root, data) {
    var steps = data.steps, deals = data.deals;
    var at = 0;
    function $(id) { return document.getElementById(id); }

    function show(i, fromLink) {
      if (!steps.length) return;
      at = clamp(i, 0, steps.length - 1);
      var s = steps[at], deal = deals[s.deal];
      $("r-pos").textContent = "deal " + (s.deal + 1) + " of " + deals.length + " \u00b7 step " +
        (at - deal.first + 1) + " of " + deal.steps + " \u00b7 " + (at + 1) + "/" + steps.length;
      drawStep("r-", data, at);
      $("r-prev").disabled = at === 0;
      $("r-prev-deal").disabled = s.deal === 0 && at === deal.first;
      $("r-next").disabled = at === steps.length - 1;
      $("r-next-deal").disabled = s.deal === deals.length - 1;
      root.setAttribute("data-step", String(at));
      var h = "#d" + (s.deal + 1) + "s" + (at - deal.first + 1);
      $("r-link").setAttribute("href", h);
      if (!fromLink) writeHash(h);
    }

    /* The step a #dNsK link names (clamped to the match), or false when the hash names none. */
    function followLink(scroll) {
      var h = readStepHash();
      if (!h || !deals.length) return false;
      var d = clamp(h.deal, 0, deals.length - 1);
      show(deals[d].first + clamp(h.step, 0, deals[d].steps - 1), true);
      if (scroll) root.scrollIntoView();
      return true;
    }

    function dealStart(d) { return deals[clamp(d, 0, deals.length - 1)].first; }
    function prevDeal() {
      var s = steps[at];
      show(at > deals[s.deal].first ? deals[s.deal].first : dealStart(s.deal - 1));
    }
    function nextDeal() { show(dealStart(steps[at].deal + 1)); }

    $("r-prev").addEventListener("click", function () { show(at - 1); });
    $("r-next").addEventListener("click", function () { show(at + 1); });
    $("r-prev-deal").addEventListener("click", prevDeal);
    $("r-next-deal").addEventListener("click", nextDeal);
    stepKeys(function () { show(at - 1); }, function () { show(at + 1); }, prevDeal, nextDeal);
    onStepLink(followLink);
    if (!followLink(true)) show(0, true);
  }

  /* ---------------------------------------------------------------- a duplicate pair side by side */
  /* Both games at the same deal and step (a game whose deal is shorter stays on its last step). */
  function PairReplay(root, games, pair) {
    var prefixes = ["a", "b"];
    var nDeals = Math.max(games[0].deals.length, games[1].deals.length);
    var d = 0, k = 0;
    var pages = prefixes.map(function (p) { return document.getElementById(p + "-open").getAttribute("href"); });
    function $(id) { return document.getElementById(id); }
    function dealSteps(n) {
      return Math.max.apply(null, games.map(function (g) { return g.deals[n] ? g.deals[n].steps : 1; }));
    }
    function info(n) { return pair.deals[n] || { seating: "missing", diverge: null }; }

    function status() {
      var i = info(d), here = k + 1, text, cls = "";
      var alike = i.seating === "swapped" || i.seating === "mirrored";
      if (i.seating === "missing") text = "Only one game has this deal.";
      else if (!alike) text = "The two games were dealt other cards in this deal.";
      else {
        text = i.seating === "swapped" ? "The same hands in the same seats: the bots swapped. "
          : "Each bot holds the same cards in both games (the other seat deals). ";
        if (i.diverge === null) text += "The same play throughout this deal.";
        else if (here < i.diverge) text += "The same play so far; it diverges at step " + i.diverge + ".";
        else if (here === i.diverge) { text += "The play diverges here."; cls = "here"; }
        else { text += "The play diverged at step " + i.diverge + "."; cls = "after"; }
      }
      var line = $("p-status");
      line.textContent = text;
      line.className = "diverge-status " + cls;
      $("p-diverge").disabled = !(alike && i.diverge !== null);
    }

    function show(nd, nk, fromLink) {
      if (!nDeals) return;
      d = clamp(nd, 0, nDeals - 1);
      k = clamp(nk, 0, dealSteps(d) - 1);
      $("p-pos").textContent = "deal " + (d + 1) + " of " + nDeals + " \u00b7 step " + (k + 1) + " of " + dealSteps(d);
      prefixes.forEach(function (p, g) {
        var data = games[g], deal = data.deals[d], box = $(p + "-game");
        box.classList.toggle("absent", !deal);
        if (!deal) {
          $(p + "-pos").textContent = "This game has no deal " + (d + 1) + ": it ended after " + data.deals.length + " deals.";
          box.removeAttribute("data-step");
          return;
        }
        var kk = Math.min(k, deal.steps - 1);
        drawStep(p + "-", data, deal.first + kk);
        $(p + "-pos").textContent = "step " + (kk + 1) + " of " + deal.steps + (kk < k ? " (the deal ended here)" : "");
        $(p + "-open").setAttribute("href", pages[g] + "#d" + (d + 1) + "s" + (kk + 1));
        box.setAttribute("data-step", String(deal.first + kk));
      });
      status();
      $("p-prev").disabled = d === 0 && k === 0;
      $("p-prev-deal").disabled = d === 0 && k === 0;
      $("p-next").disabled = d === nDeals - 1 && k === dealSteps(d) - 1;
      $("p-next-deal").disabled = d === nDeals - 1;
      root.setAttribute("data-deal", String(d));
      root.setAttribute("data-k", String(k));
      var h = "#d" + (d + 1) + "s" + (k + 1);
      $("p-link").setAttribute("href", h);
      if (!fromLink) writeHash(h);
    }

    function back() { if (k > 0) show(d, k - 1); else if (d > 0) show(d - 1, dealSteps(d - 1) - 1); }
    function forward() { if (k < dealSteps(d) - 1) show(d, k + 1); else if (d < nDeals - 1) show(d + 1, 0); }
    function prevDeal() { show(k > 0 ? d : d - 1, 0); }
    function nextDeal() { show(d + 1, 0); }
    function followLink(scroll) {
      var h = readStepHash();
      if (!h) return false;
      show(h.deal, h.step, true);
      if (scroll) root.scrollIntoView();
      return true;
    }

    $("p-prev").addEventListener("click", back);
    $("p-next").addEventListener("click", forward);
    $("p-prev-deal").addEventListener("click", prevDeal);
    $("p-next-deal").addEventListener("click", nextDeal);
    $("p-diverge").addEventListener("click", function () {
      var i = info(d);
      if (i.diverge !== null) show(d, i.diverge - 1);
    });
    stepKeys(back, forward, prevDeal, nextDeal);
    onStepLink(followLink);
    if (!followLink(true)) show(0, 0, true);
  }

  /* ---------------------------------------------------------------- the matches list, filtered by bot */
  /* The rows come from data/matches.js (arenaMatches); a page of them is in the table at a time. State in
     the hash (matches.html#bot=greedy&result=lost), so a bot page can link to its matches. */
  var COLUMN = [0, 1, 3, 4, 5, 6, 7, 8];  /* each column's field in a row of data/matches.js */

  function matchRow(r) {
    var tr = document.createElement("tr");
    tr.setAttribute("data-seat0", r[3]);
    tr.setAttribute("data-seat1", r[4]);
    tr.setAttribute("data-winner", r[6]);
    tr.setAttribute("data-forfeit", r[9]);
    tr.setAttribute("data-done", String(r[10]));
    var id = el("td", "id");
    if (r[2]) {
      var a = el("a", "", r[1]);
      a.setAttribute("href", "matches/" + r[2] + ".html");
      id.appendChild(a);
    } else {
      id.textContent = r[1];
    }
    [el("td", "num", String(r[0])), id, el("td", "", r[3]), el("td", "", r[4]), el("td", "num", r[5]),
      el("td", "", r[6] || "\u2013"), el("td", "num", String(r[7])), el("td", "", r[8])].forEach(function (c) {
      tr.appendChild(c);
    });
    return tr;
  }

  function MatchFilter(table, all) {
    function $(id) { return document.getElementById(id); }
    var bot = $("f-bot"), result = $("f-result"), count = $("f-count"), none = $("f-none");
    var pages = $("f-pages"), pageOut = $("f-page"), prev = $("f-prev"), next = $("f-next");
    var perPage = parseInt(table.getAttribute("data-page-rows") || "200", 10);
    var head = table.tHead.rows[0], body = table.tBodies[0];
    var shown = all, page = 0, sortCol = 0, sortDir = 1;
    all.forEach(function (r, i) { r.order = i; });

    function key(r, col) {
      var v = r[COLUMN[col]];
      if (head.cells[col].getAttribute("data-type") !== "num") return String(v).toLowerCase();
      return v === "" ? null : Number(v);
    }

    function sort() {
      shown.sort(function (a, b) {
        var ka = key(a, sortCol), kb = key(b, sortCol);
        if (ka === null && kb !== null) return 1;   /* empty values last, either direction */
        if (kb === null && ka !== null) return -1;
        if (ka !== null && kb !== null && ka !== kb) return (ka < kb ? -1 : 1) * sortDir;
        return a.order - b.order;
      });
    }

    function render() {
      var n = shown.length, last = Math.max(0, Math.ceil(n / perPage) - 1);
      page = clamp(page, 0, last);
      var from = page * perPage, to = Math.min(n, from + perPage);
      var frag = document.createDocumentFragment();
      for (var i = from; i < to; i++) frag.appendChild(matchRow(shown[i]));
      while (body.firstChild) body.removeChild(body.firstChild);
      body.appendChild(frag);
      pages.hidden = n <= perPage;
      pageOut.textContent = n ? "rows " + (from + 1) + "\u2013" + to + " of " + n : "";
      prev.disabled = page === 0;
      next.disabled = page >= last;
    }

    function apply(fromLink) {
      var b = bot.value, r = result.value;
      Array.prototype.forEach.call(result.options, function (o) {
        if (o.value === "won" || o.value === "lost") o.disabled = !b;  /* won or lost: by which bot? */
      });
      if (!b && (r === "won" || r === "lost")) { r = ""; result.value = ""; }
      shown = all.filter(function (row) {
        var winner = row[6], forfeit = row[9];
        var ok = !b || row[3] === b || row[4] === b;
        if (ok && r === "won") ok = winner === b;
        else if (ok && r === "lost") ok = winner !== "" && winner !== b;
        else if (ok && r === "forfeit") ok = b ? forfeit === b : forfeit !== "";
        return ok;
      });
      sort();
      page = 0;
      render();
      count.textContent = shown.length + " of " + all.length + " matches";
      none.hidden = shown.length > 0;
      if (!fromLink) {
        var parts = [];
        if (b) parts.push("bot=" + encodeURIComponent(b));
        if (r) parts.push("result=" + r);
        writeHash(parts.length ? "#" + parts.join("&") : "");
      }
    }

    function followLink() {
      var params = {};
      window.location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
        var i = kv.indexOf("=");
        if (i > 0) {
          try { params[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (err) { /* a bad link */ }
        }
      });
      bot.value = params.bot || "";
      result.value = params.result || "";
      apply(true);
    }

    Array.prototype.forEach.call(head.cells, function (th, col) {
      var button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", function () {
        var numeric = th.getAttribute("data-type") === "num";
        var first = th.getAttribute("data-first") || (numeric ? "desc" : "asc");
        var current = th.getAttribute("aria-sort"), dir;
        if (current === "ascending") dir = "descending";
        else if (current === "descending") dir = "ascending";
        else dir = first === "asc" ? "ascending" : "descending";
        Array.prototype.forEach.call(head.cells, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        sortCol = col;
        sortDir = dir === "ascending" ? 1 : -1;
        sort();
        page = 0;
        render();
      });
    });
    prev.addEventListener("click", function () { page -= 1; render(); });
    next.addEventListener("click", function () { page += 1; render(); });
    bot.addEventListener("change", function () { apply(); });
    result.addEventListener("change", function () { apply(); });
    window.addEventListener("hashchange", function () {
      if (window.location.hash !== written) followLink();
    });
    followLink();
  }

  function json(id) {
    var e = document.getElementById(id);
    return e ? JSON.parse(e.textContent) : null;
  }

  /* The lines as `ms direction text`, the ms right-aligned in 10 columns with one decimal. */
  function transcriptText(s) {
    if (typeof s.text === "string") return s.text;
    var t = 0, out = new Array(s.lines.length);
    for (var i = 0; i < s.lines.length; i++) {
      t += s.t[i];
      var ms = (t / 10).toFixed(1);
      out[i] = (ms.length < 10 ? "          ".slice(ms.length) + ms : ms) + " " + s.lines[i];
    }
    return out.join("\n");
  }

  function showTranscripts(data) {
    (data.seats || []).forEach(function (s) {
      var log = document.getElementById("log" + s.seat), err = document.getElementById("stderr" + s.seat);
      if (log) log.textContent = transcriptText(s);
      if (err) err.textContent = s.stderr;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var loading = [];  /* when every data file is shown (or failed to), <body data-ready="1"> */
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    var matches = document.getElementById("matches");
    if (matches && document.getElementById("f-bot")) {
      if (arenaMatches.rows) MatchFilter(matches, arenaMatches.rows);
      else document.getElementById("f-count").textContent = "The list cannot be shown: data/matches.js is missing.";
    }
    var root = document.getElementById("replay"), logs = document.getElementById("transcripts");
    var match = (root || logs) && (root || logs).getAttribute("data-match");
    if (match !== null && match !== undefined) {
      loading.push(arenaData.get(match).then(function (data) {
        showTranscripts(data);
        if (root && data.replay) {
          buildBoard(document.getElementById("r-board"), "r-", data.replay.bots);
          Replay(root, data.replay);
        }
      }).catch(function (err) {
        var slot = document.getElementById("r-board");
        if (slot) slot.textContent = "The replay cannot be shown: " + err.message;
        [0, 1].forEach(function (s) {
          var log = document.getElementById("log" + s);
          if (log) log.textContent = "The transcript cannot be shown: " + err.message;
        });
      }));
    }
    var pairRoot = document.getElementById("pair");
    if (pairRoot && document.getElementById("pair-data")) {
      var ids = ["a-game", "b-game"].map(function (id) {
        return document.getElementById(id).getAttribute("data-match");
      });
      loading.push(Promise.all(ids.map(function (id) { return arenaData.get(id); })).then(function (games) {
        ["a", "b"].forEach(function (p, g) {
          buildBoard(document.getElementById(p + "-board"), p + "-", games[g].replay.bots);
        });
        PairReplay(pairRoot, [games[0].replay, games[1].replay], json("pair-data"));
      }).catch(function (err) {
        document.getElementById("p-status").textContent = "The games cannot be shown: " + err.message;
      }));
    }
    Promise.all(loading).then(function () { document.body.setAttribute("data-ready", "1"); });
  });
})();
