/* arena: the cards, drawn one way for the report's replay board and `arena serve`'s live table (one module,
   copied into every report and served by the server). A card is a span.card: its rank over its suit, red for
   hearts and diamonds; its text is rank and suit ("10♥"). Ranks in the page's language: Bulgarian players
   read А, К, Д, В (асо, поп, дама, вале); 10 and 9 stay. */
var arenaCards = (function () {
  "use strict";
  var SUIT = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  var RANK = {
    en: { A: "A", T: "10", K: "K", Q: "Q", J: "J", "9": "9" },
    bg: { A: "\u0410", T: "10", K: "\u041a", Q: "\u0414", J: "\u0412", "9": "9" }
  };
  var RANK_NAME = {
    en: { A: "ace", T: "ten", K: "king", Q: "queen", J: "jack", "9": "nine" },
    bg: { A: "\u0430\u0441\u043e", T: "\u0434\u0435\u0441\u0435\u0442\u043a\u0430", K: "\u043f\u043e\u043f",
          Q: "\u0434\u0430\u043c\u0430", J: "\u0432\u0430\u043b\u0435", "9": "\u0434\u0435\u0432\u044f\u0442\u043a\u0430" }
  };
  var SUIT_NAME = {
    en: { c: "clubs", d: "diamonds", h: "hearts", s: "spades" },
    bg: { c: "\u0441\u043f\u0430\u0442\u0438\u044f", d: "\u043a\u0430\u0440\u043e", h: "\u043a\u0443\u043f\u0430",
          s: "\u043f\u0438\u043a\u0430" }
  };
  function lang(l) { return l === "bg" ? "bg" : "en"; }
  function red(suit) { return suit === "h" || suit === "d"; }
  function rank(code, l) { return RANK[lang(l)][code.charAt(0)] || code.charAt(0); }
  /* "10♥", "Д♠": a card as text, for sentences */
  function text(code, l) { return rank(code, l) + (SUIT[code.charAt(1)] || "?"); }
  /* "queen of spades", "дама пика": what a screen reader says */
  function name(code, l) {
    var L = lang(l), r = RANK_NAME[L][code.charAt(0)] || code.charAt(0), s = SUIT_NAME[L][code.charAt(1)] || "?";
    return L === "bg" ? r + " " + s : r + " of " + s;
  }
  function span(cls, t) {
    var e = document.createElement("span");
    e.className = cls;
    e.textContent = t;
    return e;
  }
  /* one card; `extra`: more classes ("win", "down"); `l`: the page's language */
  function card(code, extra, l) {
    var suit = code.charAt(1);
    var e = document.createElement("span");
    e.className = "card" + (red(suit) ? " red" : "") + (extra ? " " + extra : "");
    e.setAttribute("data-card", code);
    e.appendChild(span("rank", rank(code, l)));
    e.appendChild(span("suit", SUIT[suit] || "?"));
    e.title = name(code, l);
    return e;
  }
  /* a suit alone (the trump suit once its card is gone, a marriage's suit) */
  function suit(s, l) {
    var e = span("card suit-only" + (red(s) ? " red" : ""), SUIT[s] || "?");
    e.title = SUIT_NAME[lang(l)][s] || "?";
    return e;
  }
  /* a card face down; `label` is written on it (the talon's count), if any */
  function back(label, title) {
    var e = span("card back", label === undefined ? "" : String(label));
    if (title) e.title = title;
    return e;
  }
  return { card: card, suit: suit, back: back, text: text, rank: rank, name: name, SUIT: SUIT };
})();
