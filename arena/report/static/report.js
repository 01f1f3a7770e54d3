/* arena report: sortable tables and the replay viewer. Vanilla JS, no network, data only via textContent. */
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

  /* ---------------------------------------------------------------- replay */
  function Replay(root, data) {
    var steps = data.steps, deals = data.deals, bots = data.bots;
    var at = 0;
    function $(id) { return document.getElementById(id); }

    function show(i) {
      if (!steps.length) return;
      at = Math.max(0, Math.min(steps.length - 1, i));
      var s = steps[at], deal = deals[s.deal];
      $("r-pos").textContent = "deal " + (s.deal + 1) + " of " + deals.length + " \u00b7 step " +
        (at - deal.first + 1) + " of " + deal.steps + " \u00b7 " + (at + 1) + "/" + steps.length;
      fill($("r-label"), s.label.map(function (part) {
        return typeof part === "string" ? document.createTextNode(part) : cardEl(part[0]);
      }));
      [0, 1].forEach(function (seat) {
        fill($("r-hand" + seat), handNodes(s.hands[seat]));
        var pts = String(s.points[seat]);
        if (s.pending && s.pending[seat]) pts += " (+" + s.pending[seat] + " pending)";
        $("r-points" + seat).textContent = pts;
        $("r-tricks" + seat).textContent = String(s.tricks[seat]);
        var mine = (s.marriages || []).filter(function (m) { return m[0] === seat; });
        fill($("r-marriages" + seat), mine.length ? mine.map(function (m) { return suitEl(m[1]); }) : ["\u2013"]);
        $("r-score" + seat).textContent = String(s.score[seat]);
        $("r-seat" + seat).classList.toggle("to-move", s.move === seat);
        fill($("r-dealt" + seat), handNodes(deal.dealt[seat]));
      });
      var talon = [];
      if (s.talon > 0) {
        var back = document.createElement("span");
        back.className = "card back";
        back.textContent = String(s.talon);
        back.title = s.talon + " cards in the talon";
        talon.push(back);
      } else {
        talon.push("empty");
      }
      fill($("r-talon"), talon);
      var closed = typeof s.closed === "number";
      $("r-closed").textContent = closed ? "closed by " + bots[s.closed] : "";
      var trump = [];
      if (s.turned) trump.push(cardEl(s.turned, closed ? "down" : ""));
      else if (deal.trump) trump.push(suitEl(deal.trump));
      fill($("r-trump"), trump);
      var table = [], onTable = s.table || [];
      onTable.forEach(function (t) {
        var who = document.createElement("span");
        who.className = "who";
        who.textContent = bots[t[0]];
        table.push(who);
        table.push(cardEl(t[1], s.won === t[0] && onTable.length === 2 ? "win" : ""));
        table.push(" ");
      });
      if (!table.length) table.push("\u2013");
      fill($("r-table"), table);
      $("r-prev").disabled = at === 0;
      $("r-prev-deal").disabled = s.deal === 0 && at === deal.first;
      $("r-next").disabled = at === steps.length - 1;
      $("r-next-deal").disabled = s.deal === deals.length - 1;
      root.setAttribute("data-step", String(at));
    }

    function dealStart(d) { return deals[Math.max(0, Math.min(deals.length - 1, d))].first; }
    function prevDeal() {
      var s = steps[at];
      show(at > deals[s.deal].first ? deals[s.deal].first : dealStart(s.deal - 1));
    }
    function nextDeal() { show(dealStart(steps[at].deal + 1)); }

    $("r-prev").addEventListener("click", function () { show(at - 1); });
    $("r-next").addEventListener("click", function () { show(at + 1); });
    $("r-prev-deal").addEventListener("click", prevDeal);
    $("r-next-deal").addEventListener("click", nextDeal);
    document.addEventListener("keydown", function (e) {
      /* Left / Right step, Shift+Left / Shift+Right jump a deal; other keys keep scrolling the page. */
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if (e.key === "ArrowLeft") { if (e.shiftKey) prevDeal(); else show(at - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { if (e.shiftKey) nextDeal(); else show(at + 1); e.preventDefault(); }
    });
    show(0);
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    var root = document.getElementById("replay");
    var json = document.getElementById("replay-data");
    if (root && json) {
      try { new Replay(root, JSON.parse(json.textContent)); }
      catch (err) { document.getElementById("r-label").textContent = "The replay cannot be shown: " + err; }
    }
  });
})();
