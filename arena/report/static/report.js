/* arena report: sortable tables, the matches filter, and the viewer pages: match.html#<id> (a match: its
   facts, replay, deals and transcripts) and pair.html#<id> (a duplicate pair side by side). Vanilla JS, no
   network. A match's data comes from its data file, data/<id>.js, loaded by a <script> element that this
   script adds (which works from file://, where fetch is blocked): it calls arenaData(id, base64) with its
   JSON zlib-compressed, which the browser's DecompressionStream inflates. The replay's steps are rebuilt
   here from each deal's dealt hands and public events (rebuildReplay), by bookkeeping: every fact that
   needs the rules (who took a trick, its points, the draws) is in the data. Everything a bot wrote goes in
   through textContent only. */
/* The viewer's language: English, or Bulgarian when the address asks for it (match.html?lang=bg#<id>, as
   `arena serve`'s replay link does for a player who plays in Bulgarian). `t` takes the English sentence
   and its values; in Bulgarian it looks the sentence up in BG (the live table's wording, arena/serve/i18n.py,
   where it has the same sentence), so the English pages stay exactly as they were. */
var arenaI18n = (function () {
  "use strict";
  var asked = /[?&]lang=([a-z]+)/.exec(window.location.search || "");
  var lang = asked && asked[1] === "bg" ? "bg" : "en";
  var BG = {
    /* the steps of a replay */
    "Deal {n}: {name} deals; trump ": "Раздаване {n}: {name} раздава; коз ",
    " turned.": " е обърнат.",
    "{name} leads ": "{name} излиза с ",
    "{name} plays ": "{name} изигра ",
    "{name} declares the marriage ": "{name} обяви ",
    "counted with {name}'s first trick": "брои се с първата взятка на {name}",
    "no points before a trick": "без точки преди взятка",
    "{name} wins the trick (+{n}). ": "{name} взе взятката (+{n}). ",
    "{name} draws ": "{name} изтегли ",
    "{name} exchanges ": "{name} смени ",
    " for the turned ": " с обърнатия коз ",
    "{name} closes the talon. ": "{name} затвори талона. ",
    "{name} declares 66 with {n} points. ": "{name} обяви 66 с {n} точки. ",
    "Deal over: {name} wins {n} game point ({why}). ": "Раздаването свърши: {name} спечели {n} точка ({why}). ",
    "Deal over: {name} wins {n} game points ({why}). ": "Раздаването свърши: {name} спечели {n} точки ({why}). ",
    /* the board */
    "seat {n}": "място {n}",
    "to move": "на ход",
    "{name}'s hand": "ръката на {name}",
    "points": "точки",
    "tricks": "взятки",
    "marriages": "обяви",
    "match": "мач",
    "what {name} said and how long it thought at this step": "какво каза {name} и колко мисли на тази стъпка",
    "talon": "талон",
    "trump": "коз",
    "on the table": "на масата",
    "As dealt:": "Раздадени:",
    " (+{n} pending)": " (+{n} чакащи)",
    "{n} cards in the talon": "{n} карти в талона",
    "1 cards in the talon": "1 карта в талона",
    "empty": "празен",
    "closed by {name}": "затворен от {name}",
    "thought ": "мисли ",
    "answered ": "отговори ",
    "\u2026 and {n} more info lines (see the transcript)": "\u2026 и още {n} реда info (вижте протокола)",
    "deal {d} of {n} \u00b7 step {s} of {m} \u00b7 {a}/{b}": "раздаване {d} от {n} \u00b7 стъпка {s} от {m} \u00b7 {a}/{b}",
    /* the match's facts */
    "{a} vs {b} \u00b7 arena": "{a} срещу {b} \u00b7 арена",
    " vs ": " срещу ",
    "\u2190 previous match": "\u2190 предишен мач",
    "next match \u2192": "следващ мач \u2192",
    "Match ": "Мач ",
    " \u00b7 #{n} in the schedule \u00b7 pair {p}, game {g} \u00b7 {a} has seat 0, {b} seat 1":
      " \u00b7 №{n} в програмата \u00b7 двойка {p}, игра {g} \u00b7 {a} е на място 0, {b} на място 1",
    " (seat {n})": " (място {n})",
    " forfeited the match: ": " загуби мача служебно: ",
    ", in deal {n}.": ", в раздаване {n}.",
    ", before the first deal.": ", преди първото раздаване.",
    " The line: ": " Редът: ",
    " {name} wins by forfeit; the game points below are those when the match ended.":
      " {name} печели служебно; точките в мача по-долу са тези от края на мача.",
    "See it in the replay": "Вижте го в записа",
    "winner": "победител",
    "winner by forfeit": "победител служебно",
    "forfeited: {kind}": "загуби служебно: {kind}",
    "Result": "Резултат",
    "{name} wins by forfeit ({bot}: {kind})": "{name} печели служебно ({bot}: {kind})",
    "nobody": "никой",
    "{name} won {a}\u2013{b}": "{name} спечели {a}\u2013{b}",
    "Ended by": "Край",
    "reaching the target": "достигната цел",
    " by {name}": " от {name}",
    "Deals": "Раздавания",
    "Duration": "Продължителност",
    "Seeds": "Семена",
    "deals {a}, match {b}": "раздавания {a}, мач {b}",
    "Duplicate partner": "Двойник",
    "A replay of your match, deal by deal and trick by trick.": "Записът на мача ви, раздаване по раздаване и взятка по взятка.",
    "Keys: \u2190 / \u2192 step back / forward, Shift+\u2190 / Shift+\u2192 previous / next deal.":
      "Клавиши: \u2190 / \u2192 стъпка назад / напред, Shift+\u2190 / Shift+\u2192 предишно / следващо раздаване.",
    "none": "няма",
    "; different deals": "; други раздавания",
    "both games side by side": "двете игри една до друга",
    "Random moves for {name}": "Случайни ходове за {name}",
    "Think time {name}": "Време за мислене на {name}",
    "median {a}, max {b} ({n} decisions)": "медиана {a}, най-много {b} ({n} решения)",
    "Terminations": "Прекратявания",
    "Violations in this match": "Нарушения в този мач",
    "Bot": "Бот", "Kind": "Вид", "#Deal": "#Раздаване", "#At": "#Кога", "Detail": "Подробности", "Line": "Ред",
    "{name} (seat {n})": "{name} (място {n})",
    "No replay: this arena cannot read the stored rule set.": "Няма запис: тази арена не може да прочете записаните правила.",
    "Every deal of the match (a deal's number opens it in the replay)":
      "Всички раздавания на мача (номерът на раздаване го отваря в записа)",
    "Dealer": "Раздава", "Trump": "Коз", "Winner": "Победител", "#Game points": "#Точки в мача", "How": "Как",
    "#Card points": "#Точки от картите", "#Tricks": "#Взятки",
    /* the transcripts */
    "Protocol lines as \u201cms direction line\u201d: > referee to bot, < bot to referee, ! a referee note.":
      "Редовете на протокола като \u201eмс посока ред\u201c: > от съдията към бота, < от бота към съдията, ! бележка на съдията.",
    "omitted": "Този мач няма прекратяване и случайни ходове, затова от протоколите му е запазено само това, което " +
      "показва записът (редовете info и времето за мислене) и stderr на ботовете. Всички редове са в базата данни: ",
    " prints them, ": " ги показва, ",
    " puts them in the report (docs/REPORTS.md, docs/DATABASE.md).": " ги слага в отчета (docs/REPORTS.md, docs/DATABASE.md).",
    "Seat {n}: {name} \u2014 {c} protocol line": "Място {n}: {name} \u2014 {c} ред на протокола",
    "Seat {n}: {name} \u2014 {c} protocol lines": "Място {n}: {name} \u2014 {c} реда на протокола",
    ", stderr {n} character": ", stderr {n} знак",
    ", stderr {n} characters": ", stderr {n} знака",
    "This match cannot be shown: {message}.": "Този мач не може да се покаже: {message}.",
    "{n} s": "{n} с",
    "\u2190 Home": "\u2190 Начало",
    "{n} ms": "{n} мс",
    /* the page's own text (data-t in match.html, base.html and the replay controls) */
    "page-match": "Мач",
    "loading": "Зареждане на мача\u2026",
    "replay": "Запис",
    "keys": "Клавиши: \u2190 / \u2192 стъпка назад / напред, Shift+\u2190 / Shift+\u2192 предишно / следващо раздаване. " +
      "Под всеки бот: колко е мислил за действието на тази стъпка и редовете info, които е пратил междувременно.",
    "transcripts": "Протоколи",
    "skip": "Към съдържанието",
    "nav": "Отчет",
    "matches": "Мачове",
    "rules": "Правила",
    "status-running": "тече",
    "footer": "Създадено от arena.",
    "controls": "Управление на записа",
    "prev-deal": "\u00ab Раздаване", "prev-deal-title": "Предишно раздаване (Shift+\u2190)",
    "prev": "\u25c0 Назад", "prev-title": "Стъпка назад (\u2190)",
    "next": "Напред \u25b6", "next-title": "Стъпка напред (\u2192)",
    "next-deal": "Раздаване \u00bb", "next-deal-title": "Следващо раздаване (Shift+\u2192)",
    "step-link": "връзка към тази стъпка", "step-link-title": "Връзка, която отваря страницата на тази стъпка"
  };
  /* the reasons a deal or a match ended (the live table's r_*), the termination kinds, and the names the
     server gives a person's seat */
  var BG_WORD = {
    "reached-66": "66 точки", "declared-66": "обява на 66", "closed-and-reached-66": "затваряне и 66 точки",
    "closed-and-declared-66": "затваряне и обява на 66", "failed-close": "затваряне без 66",
    "wrong-declaration": "обява на 66 без 66 точки", "last-trick": "никой не стигна 66; реши последната взятка",
    "more-points": "никой не стигна 66; решиха повечето точки", "forfeit": "служебна загуба",
    "target": "целта е достигната", "disconnect": "играч напусна", "timeout": "на играч му изтече времето",
    "crash": "ботът се срина", "handshake": "ботът не тръгна както трябва", "malformed": "ботът наруши протокола",
    "overlong": "ботът наруши протокола", "encoding": "ботът наруши протокола", "illegal": "непозволен ход",
    "unexpected": "ботът наруши протокола", "tampered": "програмата на бота се промени"
  };
  var BG_NAME = { human: "Играч", host: "Играч 1", guest: "Играч 2" };  /* as the live table names them */
  /* in English the report keeps the server's names, but a player's replay (?from=play) names them as the table */
  var EN_NAME = /[?&]from=play(&|$)/.test(window.location.search || "") ? { human: "Player", host: "Player 1", guest: "Player 2" } : {};
  function t(text, values) {
    var s = lang === "bg" && Object.prototype.hasOwnProperty.call(BG, text) ? BG[text] : text;
    return s.replace(/\{(\w+)\}/g, function (all, k) {
      return values && Object.prototype.hasOwnProperty.call(values, k) ? String(values[k]) : all;
    });
  }
  function lookUp(table, w) {
    if (lang !== "bg") table = table === BG_NAME ? EN_NAME : {};
    return typeof w === "string" && Object.prototype.hasOwnProperty.call(table, w) ? table[w] : w;
  }
  /* a reason ("reached 66", as the database writes it) or a termination in the page's language (else as it is) */
  function word(w) {
    if (typeof w !== "string") return w;
    var key = w.replace(/ /g, "-");
    return lang === "bg" && Object.prototype.hasOwnProperty.call(BG_WORD, key) ? BG_WORD[key] : w;
  }
  /* a match's names, a person's seat (human, host, guest: the server's names for them) in the page's language */
  function names(m) {
    m.bots = m.bots.map(function (b) { return lookUp(BG_NAME, b); });
    m.winner = lookUp(BG_NAME, m.winner);
    m.terminated_bot = lookUp(BG_NAME, m.terminated_bot);
    if (m.forfeit) {
      m.forfeit.bot = lookUp(BG_NAME, m.forfeit.bot);
      m.forfeit.winner = lookUp(BG_NAME, m.forfeit.winner);
    }
  }
  /* the page's own text: elements marked data-t (text), data-t-title and data-t-label (attributes) */
  function translatePage() {
    if (lang === "en") return;
    document.documentElement.setAttribute("lang", lang);
    [["data-t", null], ["data-t-title", "title"], ["data-t-label", "aria-label"]].forEach(function (a) {
      Array.prototype.forEach.call(document.querySelectorAll("[" + a[0] + "]"), function (e) {
        var text = BG[e.getAttribute(a[0])];
        if (text === undefined) return;
        if (a[1]) e.setAttribute(a[1], text); else e.textContent = text;
      });
    });
  }
  /* The last step's words of a deal a forfeit ended, in the page's language, from arena.report.context's
     "forfeited": [who gets the game points, how many, the bot whose termination ended the match, the
     termination], each null when there is none. */
  function forfeitNote(f) {
    var gets = f[0], gp = f[1], bot = f[2], kind = f[3];
    if (lang === "bg") {
      return " Раздаването свърши служебно" +
        (gets === null ? "" : "; " + lookUp(BG_NAME, gets) + " получава " + gp + (gp === 1 ? " точка" : " точки")) +
        (kind === null ? "" : " (" + (bot === null ? "" : lookUp(BG_NAME, bot) + ": ") + word(kind) + ")") + ".";
    }
    return " Deal over: forfeited" + (gets === null ? "" : "; " + gets + " gets " + gp + " game point" + (gp === 1 ? "" : "s")) +
      (kind === null ? "" : " (" + (bot === null ? "" : bot + ": ") + kind + ")") + ".";
  }
  return { lang: lang, t: t, word: word, names: names, forfeitNote: forfeitNote, translatePage: translatePage };
})();

var arenaData = (function () {
  "use strict";
  var loaded = {};
  function arenaData(id, b64) { loaded[id] = b64; }
  function inflate(id) {
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot inflate the data (no DecompressionStream)"));
    }
    var bin = atob(loaded[id]), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }
  /* The payload of data/<id>.js (root: the path to the report's folder), loading the file first. */
  arenaData.load = function (id, root) {
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(id)) return Promise.reject(new Error("\u201c" + id + "\u201d names no match"));
    if (Object.prototype.hasOwnProperty.call(loaded, id)) return inflate(id);
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = (root || "") + "data/" + id + ".js";
      s.onload = function () {
        if (Object.prototype.hasOwnProperty.call(loaded, id)) resolve(inflate(id));
        else reject(new Error("data/" + id + ".js is not a match's data file"));
      };
      s.onerror = function () { reject(new Error("data/" + id + ".js is missing: no finished match has that id")); };
      document.head.appendChild(s);
    });
  };
  return arenaData;
})();

/* data/matches.js: the rows of the matches list */
function arenaMatches(rows) { arenaMatches.rows = rows; }

/* The replay's steps from a data file's deals (see arena.report.context.compact_deal): the same steps,
   with the same table at each, that tests/reference_replay.py builds with the rules engine. */
var rebuildReplay = (function () {
  "use strict";
  var T = arenaI18n.t, W = arenaI18n.word;
  var RANKS = "9JQKTA", SUITS = "shcd";  /* display order: black, red, black, red; high ranks first */
  function order(c) { return SUITS.indexOf(c.charAt(1)) * 6 + 5 - RANKS.indexOf(c.charAt(0)); }
  function cards(text) { return text ? text.split(" ") : []; }
  function handText(hand) { return hand.slice().sort(function (a, b) { return order(a) - order(b); }).join(" "); }
  function drop(hand, card) { var i = hand.indexOf(card); if (i >= 0) hand.splice(i, 1); }

  return function rebuildReplay(data) {
    var bots = data.m.bots, steps = [], deals = [], score = [0, 0];
    data.deals.forEach(function (row, di) {
      var info = { idx: row.idx, dealer: row.dealer, trump: row.suit || row.trump, dealt: row.dealt || ["", ""],
        result: null, first: steps.length };
      deals.push(info);
      if (row.broken) {
        steps.push({ deal: di, label: [row.error], hands: ["", ""], talon: 0, points: [0, 0], tricks: [0, 0],
          score: score.slice() });
      } else {
        var hands = [cards(row.dealt[0]), cards(row.dealt[1])], talon = row.talon, trump = row.turned;
        var points = [0, 0], pending = [0, 0], tricks = [0, 0], marriages = [], closed = null, over = false;
        var table = [], acts = row.acts;
        var moveAfter = function (i) {  /* the seat to move after action i (-1: as dealt) */
          if (over) return undefined;
          if (i + 1 < acts.length) return parseInt(acts[i + 1].charAt(1), 10);
          return row.move;
        };
        var snap = function (label, onTable, won, move) {
          var s = { deal: di, label: label, hands: [handText(hands[0]), handText(hands[1])], talon: talon,
            points: points.slice(), tricks: tricks.slice(), score: score.slice() };
          if (talon > 0) s.turned = trump;
          if (onTable.length) s.table = onTable.map(function (t) { return t.slice(); });
          if (won !== null) s.won = won;
          if (pending[0] || pending[1]) s.pending = pending.slice();
          if (marriages.length) s.marriages = marriages.map(function (m) { return m.slice(); });
          if (closed !== null) s.closed = closed;
          if (move !== undefined && move !== null) s.move = move;
          return s;
        };
        steps.push(snap([T("Deal {n}: {name} deals; trump ", { n: row.idx + 1, name: bots[row.dealer] }), [row.turned], T(" turned.")],
          [], null, moveAfter(-1)));
        acts.forEach(function (act, i) {
          var out = [], draws = [], won = null;
          if (table.length === 2) table = [];
          act.split(" ").forEach(function (ev) {
            var k = ev.charAt(0), s = parseInt(ev.charAt(1), 10), rest = ev.slice(2), who = bots[s];
            if (k === "p") {
              out.push(T(table.length ? "{name} plays " : "{name} leads ", { name: who }), [rest], ". ");
              table.push([s, rest]);
              drop(hands[s], rest);
            } else if (k === "m" || k === "M") {
              var suit = rest.charAt(1), pts = parseInt(rest.slice(2), 10);
              var note = tricks[s] || !pts ? String(pts) : pts + ", " + T("counted with {name}'s first trick", { name: who });
              if (!pts) note = T("no points before a trick");
              out.push(T("{name} declares the marriage ", { name: who }), ["K" + suit], ["Q" + suit], " (" + note + "). ");
              if (k === "M") points[s] += pts; else pending[s] += pts;
              marriages.push([s, suit]);
            } else if (k === "t") {
              var tp = parseInt(rest, 10);
              won = s;
              tricks[s] += 1;
              points[s] += tp + pending[s];
              pending[s] = 0;
              out.push(T("{name} wins the trick (+{n}). ", { name: who, n: tp }));
            } else if (k === "d") {
              draws.push(T("{name} draws ", { name: who }), [rest]);
              draws.push(draws.length < 4 ? ", " : ". ");
              hands[s].push(rest);
              talon -= 1;
            } else if (k === "x") {
              var given = rest.slice(0, 2), taken = rest.slice(2, 4);
              out.push(T("{name} exchanges ", { name: who }), [given], T(" for the turned "), [taken], ". ");
              drop(hands[s], given);
              hands[s].push(taken);
              trump = given;
            } else if (k === "c") {
              closed = s;
              out.push(T("{name} closes the talon. ", { name: who }));
            } else if (k === "s") {
              out.push(T("{name} declares 66 with {n} points. ", { name: who, n: rest }));
            } else if (k === "e") {
              var gp = parseInt(rest, 10);
              out = out.concat(draws);
              draws = [];
              out.push(T(gp !== 1 ? "Deal over: {name} wins {n} game points ({why}). " : "Deal over: {name} wins {n} game point ({why}). ",
                { name: who, n: gp, why: W(row.why) || "?" }));
              over = true;
              if (row.final) points = row.final.slice();
            }
          });
          out = out.concat(draws);
          if (out.length && typeof out[out.length - 1] === "string") out[out.length - 1] = out[out.length - 1].replace(/\s+$/, "");
          steps.push(snap(out, table, won, moveAfter(i)));
        });
        if (row.error) steps.push(snap([row.error], [], null, over ? undefined : row.move));
      }
      var last = steps[steps.length - 1];
      if (row.forfeited) last.label = last.label.concat([arenaI18n.forfeitNote(row.forfeited)]);
      else if (row.note) last.label = last.label.concat([row.note]);
      if ((row.winner === 0 || row.winner === 1) && typeof row.gp === "number") {
        score[row.winner] += row.gp;
        last.score = score.slice();
        info.result = bots[row.winner] + " +" + row.gp + " (" + W(row.reason) + ")";
      }
      last.end = true;
      info.steps = steps.length - info.first;
    });
    (data.say || []).forEach(function (e) {
      var step = steps[e[0]];
      if (!step) return;
      var entry = { seat: e[1] };
      if (typeof e[2] === "number") entry.ms = e[2];
      Object.keys(e[3] || {}).forEach(function (k) { entry[k] = e[3][k]; });
      (step.say = step.say || []).push(entry);
    });
    return { bots: bots, deals: deals, steps: steps };
  };
})();

(function () {
  "use strict";
  var T = arenaI18n.t, W = arenaI18n.word, LANG = arenaI18n.lang;

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
  /* the shared card module (static/cards.js), as `arena serve`'s live table draws them */
  function cardEl(code, extra) { return arenaCards.card(code, extra, LANG); }
  function suitEl(suit) { return arenaCards.suit(suit, LANG); }

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
    if (v >= 1000) return T("{n} s", { n: (v / 1000).toFixed(2) });
    return T("{n} ms", { n: parseFloat(v.toPrecision(3)) });
  }

  /* ---------------------------------------------------------------- what a bot said at a step */
  function sayNodes(entries) {
    var out = [];
    entries.forEach(function (e) {
      if (typeof e.ms === "number") {
        var t = el("div", "think", T("thought "));
        t.appendChild(el("strong", "", fmtMs(e.ms)));
        out.push(t);
      }
      (e.notes || []).forEach(function (n) { out.push(el("div", "say-note term", n)); });
      if (typeof e.reply === "string") {
        var r = el("div", "say-reply", T("answered "));
        r.appendChild(el("code", "", e.reply));
        out.push(r);
      }
      if (e.info && e.info.length) {
        var ul = el("ul", "info");
        e.info.forEach(function (line) { ul.appendChild(el("li", "", line)); });
        if (e.more) ul.appendChild(el("li", "muted", T("\u2026 and {n} more info lines (see the transcript)", { n: e.more })));
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
        return h("span", {}, [T(name) + " ", h("strong", { id: p + id + s, text: first })]);
      }
      return h("div", { cls: "seat", id: p + "seat" + s, "data-seat": String(s) }, [
        h("div", { cls: "seat-head" }, [h("span", { cls: "seat-name", text: bots[s] }), " ",
          h("span", { cls: "muted", text: FOR_PLAYER ? "" : T("seat {n}", { n: s }) }), " ", h("span", { cls: "to-move-badge", text: T("to move") })]),
        h("div", { cls: "hand", id: p + "hand" + s, "aria-label": T("{name}'s hand", { name: bots[s] }) }),
        h("div", { cls: "seat-stats" }, [stat("points", "points", "0"), " ", stat("tricks", "tricks", "0"), " ",
          stat("marriages", "marriages", "\u2013"), " ", stat("match", "score", "0")]),
        h("div", { cls: "say", id: p + "say" + s,
          "aria-label": T("what {name} said and how long it thought at this step", { name: bots[s] }) })
      ]);
    }
    function pile(name, id, cls) {
      return h("div", { cls: "pile" + (cls ? " " + cls : "") }, [h("div", { cls: "muted small", text: T(name) }),
        h("div", { id: p + id, cls: id === "table" ? "trick" : id === "talon" ? "talon" : "" })]);
    }
    var talon = pile("talon", "talon");
    talon.appendChild(h("div", { id: p + "closed", cls: "small" }));
    fill(slot, [
      h("p", { id: p + "label", cls: "step-label", "aria-live": "polite" }),
      h("div", { cls: "board" }, [seat(1), h("div", { cls: "middle" }, [talon, pile("trump", "trump"),
        pile("on the table", "table", "trick-pile")]), seat(0)]),
      h("p", { cls: "dealt small" }, [h("span", { cls: "muted", text: T("As dealt:") }), " ", h("span", { id: p + "dealt0" }),
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
      if (s.pending && s.pending[seat]) pts += T(" (+{n} pending)", { n: s.pending[seat] });
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
      talon.push(arenaCards.back(s.talon, T(s.talon === 1 && LANG !== "en" ? "1 cards in the talon" : "{n} cards in the talon",
        { n: s.talon })));
    } else {
      talon.push(T("empty"));
    }
    fill($("talon"), talon);
    var closed = typeof s.closed === "number";
    $("closed").textContent = closed ? T("closed by {name}", { name: bots[s.closed] }) : "";
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

  /* ---------------------------------------------------------------- links to a step: #<id>/d3s7 */
  var STEP_HASH = /(?:^#|\/)d(\d+)s(\d+)$/;
  var stepBase = "#";  /* a step's link is stepBase + "d3s7": the viewer pages put the match's id first */
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
      $("r-pos").textContent = T("deal {d} of {n} \u00b7 step {s} of {m} \u00b7 {a}/{b}", { d: s.deal + 1, n: deals.length,
        s: at - deal.first + 1, m: deal.steps, a: at + 1, b: steps.length });
      drawStep("r-", data, at);
      $("r-prev").disabled = at === 0;
      $("r-prev-deal").disabled = s.deal === 0 && at === deal.first;
      $("r-next").disabled = at === steps.length - 1;
      $("r-next-deal").disabled = s.deal === deals.length - 1;
      root.setAttribute("data-step", String(at));
      var h = stepBase + "d" + (s.deal + 1) + "s" + (at - deal.first + 1);
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
  function PairReplay(root, games, pair) {  /* games: rebuilt replays plus .file, their data file */
    var prefixes = ["a", "b"];
    var nDeals = Math.max(games[0].deals.length, games[1].deals.length);
    var d = 0, k = 0;
    var pages = games.map(function (g) { return "match.html#" + g.file + "/"; });
    function $(id) { return document.getElementById(id); }
    function dealSteps(n) {
      return Math.max.apply(null, games.map(function (g) { return g.deals[n] ? g.deals[n].steps : 1; }));
    }
    function info(n) { return pair.deals[n] || { seating: "missing", diverge: null }; }

    function status() {
      var i = info(d), here = k + 1, text, cls = "";
      var alike = i.seating === "swapped" || i.seating === "mirrored";
      if (i.seating === "missing") text = "Only one game has this deal.";
      else if (i.seating === "twinned") text = "The same hands in the same seats: the bots swapped, but the other seat deals, " +
        "so the other bot leads and the play does not compare step by step.";
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
        $(p + "-open").setAttribute("href", pages[g] + "d" + (d + 1) + "s" + (kk + 1));
        box.setAttribute("data-step", String(deal.first + kk));
      });
      status();
      $("p-prev").disabled = d === 0 && k === 0;
      $("p-prev-deal").disabled = d === 0 && k === 0;
      $("p-next").disabled = d === nDeals - 1 && k === dealSteps(d) - 1;
      $("p-next-deal").disabled = d === nDeals - 1;
      root.setAttribute("data-deal", String(d));
      root.setAttribute("data-k", String(k));
      var h = stepBase + "d" + (d + 1) + "s" + (k + 1);
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
      a.setAttribute("href", "match.html#" + r[2]);
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


  /* ---------------------------------------------------------------- the viewer pages: shared pieces */
  function a(href, text, cls) {
    var e = el("a", cls || "", text);
    e.setAttribute("href", href);
    return e;
  }
  function botLink(data, seat) { return a("bots/" + data.m.files[seat] + ".html", data.m.bots[seat], "bot"); }
  /* (the address's ?lang= and ?from= go along: the next match is in the same language, with the same way back) */
  function matchLink(link, text) { return a("match.html" + window.location.search + "#" + link.file, text || link.id); }
  function code(text) { return el("code", "", text); }
  function append(parent, kids) {
    kids.forEach(function (k) { if (k !== null) parent.appendChild(typeof k === "string" ? document.createTextNode(k) : k); });
    return parent;
  }
  function fact(name, kids) {
    var div = el("div");
    div.appendChild(el("dt", "", name));
    div.appendChild(append(el("dd"), kids));
    return div;
  }
  function table(caption, heads, rows, cls) {
    var t = el("table", "list" + (cls ? " " + cls : ""));
    t.appendChild(el("caption", "", caption));
    var tr = el("tr");
    heads.forEach(function (hd) {
      var th = el("th", hd.charAt(0) === "#" ? "num" : "", hd.replace(/^#/, ""));
      th.setAttribute("scope", "col");
      tr.appendChild(th);
    });
    t.appendChild(el("thead")).appendChild(tr);
    var body = t.appendChild(el("tbody"));
    rows.forEach(function (r) {
      var row = body.appendChild(el("tr"));
      r.forEach(function (cell, i) {
        var td = el("td", heads[i].charAt(0) === "#" ? "num" : "");
        append(td, Array.isArray(cell) ? cell : [cell === null || cell === undefined ? "\u2013" : String(cell)]);
        row.appendChild(td);
      });
    });
    var wrap = el("div", "scroll");
    wrap.appendChild(t);
    return wrap;
  }
  function section(id, title, kids) {
    var s = el("section");
    s.setAttribute("aria-labelledby", "h-" + id);
    var h2 = el("h2", "", title);
    h2.id = "h-" + id;
    s.appendChild(h2);
    return append(s, kids);
  }
  function stepLink(deal, step, text) { return a(stepBase + "d" + (deal + 1) + "s" + step, text); }

  /* The address names the match: #<id> or #<id>/d3s7. */
  function viewerId() { return decodeURIComponent(window.location.hash.replace(/^#/, "").split("/")[0] || ""); }

  function failed(err) {
    var status = document.getElementById("v-status");
    status.textContent = T("This match cannot be shown: {message}.", { message: err.message });
    status.className = "note";
  }

  /* A replay opened from `arena serve`'s table (?from=play) is a player's: it links back to the server's home
     page, and speaks of deals, tricks and points, not of the organiser's seeds, pairs, seats and schedule
     (the report's pages, the transcripts and the navigation to them are left out). */
  var FOR_PLAYER = /[?&]from=play(&|$)/.test(window.location.search);
  function homeLink() {
    var nav = document.querySelector("header.site nav");
    if (!nav) return;
    Array.prototype.slice.call(nav.children).forEach(function (c) { c.hidden = true; });
    /* the keys, without what a bot's lines are (a player's replay has a person in it) */
    var keys = document.querySelector("p.keys");
    if (keys) keys.textContent = T("Keys: \u2190 / \u2192 step back / forward, Shift+\u2190 / Shift+\u2192 previous / next deal.");
    var link = a("/" + (LANG === "en" ? "" : "?lang=" + LANG), T("\u2190 Home"));
    link.id = "play-home";
    nav.insertBefore(link, nav.firstChild);
  }

  /* ---------------------------------------------------------------- match.html#<id> */
  function showMatch(data, replay) {
    var m = data.m, bots = m.bots, sides = m.sides;
    function $(id) { return document.getElementById(id); }
    document.title = T("{a} vs {b} \u00b7 arena", { a: bots[sides[0]], b: bots[sides[1]] });
    var crumbs = [];
    if (FOR_PLAYER) m = Object.assign({}, m, { prev: null, next: null });
    if (m.prev) crumbs.push(matchLink(m.prev, T("\u2190 previous match")));
    if (m.prev && m.next) crumbs.push(" \u00b7 ");
    if (m.next) crumbs.push(matchLink(m.next, T("next match \u2192")));
    append($("v-crumbs"), crumbs);
    fill($("v-title"), [bots[sides[0]], el("span", "vs", T(" vs ")), bots[sides[1]]]);
    var status = $("v-status");
    status.id = "seating";
    if (FOR_PLAYER) fill(status, [T("A replay of your match, deal by deal and trick by trick.")]);
    else fill(status, [T("Match "), code(data.id), T(" \u00b7 #{n} in the schedule \u00b7 pair {p}, game {g} \u00b7 {a} has seat 0, {b} seat 1",
      { n: m.order + 1, p: m.pair_index, g: m.game, a: bots[0], b: bots[1] })]);
    var head = $("v-head"), f = m.forfeit;
    if (f) {
      var p = el("p", "note forfeit");
      p.id = "forfeit";
      append(p, [el("strong", "", f.bot), f.seat !== null && !FOR_PLAYER ? T(" (seat {n})", { n: f.seat }) : "", T(" forfeited the match: "),
        el("span", "term", W(f.kind)), f.detail ? ", " + f.detail : "",
        f.deal !== null ? T(", in deal {n}.", { n: f.deal + 1 }) : T(", before the first deal.")]);
      if (f.line !== null) append(p, [T(" The line: "), code(f.line), "."]);
      if (f.winner) p.appendChild(document.createTextNode(T(" {name} wins by forfeit; the game points below are those when the match ended.", { name: f.winner })));
      if (f.at && replay) append(p, [" ", stepLink(f.at[0], f.at[1], T("See it in the replay")), "."]);
      head.appendChild(p);
    }
    var line = el("div", "scoreline");
    sides.forEach(function (s) {
      var side = el("div", "side" + (m.winner_seat === s ? " winner" : "") + (f && f.seat === s ? " forfeited" : ""));
      append(side, [el("div", "muted small", FOR_PLAYER ? "" : T("seat {n}", { n: s })), append(el("div", "name"), [botLink(data, s)]),
        el("div", "big", m.score[s] === null ? "\u2013" : String(m.score[s]))]);
      if (m.winner_seat === s) side.appendChild(el("div", "won", T(f ? "winner by forfeit" : "winner")));
      if (f && f.seat === s) side.appendChild(el("div", "term", T("forfeited: {kind}", { kind: W(f.kind) })));
      line.appendChild(side);
    });
    head.appendChild(line);
    var facts = el("dl", "facts"), ws = m.winner_seat;
    var result = f ? T("{name} wins by forfeit ({bot}: {kind})", { name: m.winner || T("nobody"), bot: f.bot, kind: W(f.kind) })
      : m.winner && (ws === 0 || ws === 1) ? T("{name} won {a}\u2013{b}", { name: m.winner, a: m.score[ws], b: m.score[1 - ws] })
      : m.result;
    facts.appendChild(fact(T("Result"), [result]));
    facts.appendChild(fact(T("Ended by"), m.reason === "target" ? [T("reaching the target")]
      : [el("span", "term", W(String(m.reason))), m.terminated_bot ? T(" by {name}", { name: m.terminated_bot }) : ""]));
    facts.appendChild(fact(T("Deals"), [String(m.deals)]));
    facts.appendChild(fact(T("Duration"), [typeof m.duration_s === "number" ? T("{n} s", { n: m.duration_s.toFixed(2) }) : "\u2013"]));
    if (!FOR_PLAYER) facts.appendChild(fact(T("Seeds"), [T("deals {a}, match {b}", { a: m.seeds[0], b: m.seeds[1] })]));
    var partner = m.partner ? [matchLink(m.partner), " (" + m.partner.result + (m.partner.same ? "" : T("; different deals")) + ")"]
      : [T("none")];
    if (m.partner && m.partner.pair) partner.push(" \u00b7 ", a("pair.html#" + data.file, T("both games side by side"), "pair-link"));
    if (!FOR_PLAYER) facts.appendChild(fact(T("Duplicate partner"), partner));
    [0, 1].forEach(function (s) {
      if (m.substitutions[s]) facts.appendChild(fact(T("Random moves for {name}", { name: bots[s] }), [String(m.substitutions[s])]));
    });
    sides.forEach(function (s) {
      var t = m.think[s];
      facts.appendChild(fact(T("Think time {name}", { name: bots[s] }), [T("median {a}, max {b} ({n} decisions)",
        { a: t[1] === null ? "\u2013" : fmtMs(t[1]), b: t[2] === null ? "\u2013" : fmtMs(t[2]), n: t[0] || 0 })]));
    });
    head.appendChild(facts);
    var last = {};  /* deal index -> its last step */
    if (replay) replay.deals.forEach(function (d) { last[d.idx] = d.steps; });
    if (m.terms.length) {
      head.appendChild(section("terms", T("Terminations"), [table(T("Violations in this match"),
        ["Bot", "Kind", "#Deal", "#At", "Detail", "Line"].map(function (x) { return T(x); }), m.terms.map(function (t) {
          var deal = t[3] === null ? "\u2013" : last[t[3]] ? [stepLink(t[3], last[t[3]], String(t[3] + 1))] : String(t[3] + 1);
          return [FOR_PLAYER ? t[0] : T("{name} (seat {n})", { name: t[0], n: t[1] }), [el("span", "term", W(t[2]))], deal, t[4] === null ? null : fmtMs(t[4]),
            t[5] || "", t[6] === null ? "" : [code(t[6])]];
        }))]));
    }
    if (replay) {
      $("replay").hidden = false;
      buildBoard($("r-board"), "r-", bots);
      Replay($("replay"), replay);
    } else {
      head.appendChild(el("p", "note", T("No replay: this arena cannot read the stored rule set.")));
    }
    var rows = data.deals.map(function (d) {
      var dealer = d.dealer === 0 || d.dealer === 1 ? bots[d.dealer] : "?";
      return [last[d.idx] ? [stepLink(d.idx, 1, String(d.idx + 1))] : String(d.idx + 1), dealer, d.trump ? [cardEl(d.trump)] : "",
        d.winner === 0 || d.winner === 1 ? bots[d.winner] : null, d.gp, W(d.reason) || "",
        d.points[0] === null ? null : d.points[0] + "\u2013" + d.points[1],
        d.tricks[0] === null ? null : d.tricks[0] + "\u2013" + d.tricks[1]];
    });
    $("v-deals").appendChild(section("deals", T("Deals"), [table(T("Every deal of the match (a deal's number opens it in the replay)"),
      ["#Deal", "Dealer", "Trump", "Winner", "#Game points", "How", "#Card points", "#Tricks"].map(function (x) { return T(x); }),
      rows, "deals")]));
    if (!FOR_PLAYER) showTranscripts(data);
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
    var box = document.getElementById("t-seats"), explain = document.getElementById("t-explain");
    document.getElementById("transcripts").hidden = false;
    if (data.transcripts) {
      explain.textContent = T("Protocol lines as \u201cms direction line\u201d: > referee to bot, < bot to referee, ! a referee note.");
    } else {
      explain.id = "t-omitted";
      append(explain, [LANG === "en" ? "This match had no termination and no random move, so the report keeps of its transcripts only what the " +
        "replay shows (each bot's info lines and think times) and the bots' stderr. Every protocol line is in the " +
        "database: " : T("omitted"), code("arena transcript DB " + data.id), T(" prints them, "), code("arena report DB --transcripts all"),
        T(" puts them in the report (docs/REPORTS.md, docs/DATABASE.md).")]);
    }
    data.seats.forEach(function (s) {
      var bot = data.m.bots[s.seat];
      var details = el("details", "transcript");
      var summary = T(s.count === 1 ? "Seat {n}: {name} \u2014 {c} protocol line" : "Seat {n}: {name} \u2014 {c} protocol lines",
        { n: s.seat, name: bot, c: s.count }) + (s.stderr ? T(s.stderr.length === 1 ? ", stderr {n} character" : ", stderr {n} characters",
        { n: s.stderr.length }) : "");
      details.appendChild(el("summary", "", summary));
      if (data.transcripts) {
        var log = el("pre", "log", transcriptText(s));
        log.id = "log" + s.seat;
        details.appendChild(log);
      }
      if (s.stderr) {
        details.appendChild(el("h3", "small", "stderr"));
        var err = el("pre", "log stderr", s.stderr);
        err.id = "stderr" + s.seat;
        details.appendChild(err);
      }
      box.appendChild(details);
    });
  }

  /* ---------------------------------------------------------------- pair.html#<id> */
  var KIND = { p: "play", m: "marriage", M: "marriage", x: "exchange", c: "close", s: "declare" };

  /* An action as its first event names it, without the points: "p0Th", "m0Kh", "x0", "c1". */
  function actionKey(act) {
    var ev = act.split(" ")[0], k = ev.charAt(0);
    if (k === "p" || k === "m" || k === "M") return (k === "M" ? "m" : k) + ev.slice(1, 4);
    return ev.slice(0, 2);
  }
  function otherSeat(key) { return key.charAt(0) + (key.charAt(1) === "0" ? "1" : "0") + key.slice(2); }
  function actionText(act, bots) {
    var key = actionKey(act), k = key.charAt(0), card = key.slice(2);
    var what = KIND[k] + (card ? " " + arenaCards.text(card) : "");
    return bots[parseInt(key.charAt(1), 10)] + ": " + what;
  }
  function dealResult(d, bots) {
    if (d.winner === 0 || d.winner === 1) return bots[d.winner] + " +" + d.gp + " (" + d.reason + ")";
    return String(d.reason || "not decided");
  }

  /* Per deal of a pair (games: game 0, game 1): how it was dealt in both and where the play diverged. */
  function pairDeals(games) {
    var out = [], n = Math.max(games[0].deals.length, games[1].deals.length);
    for (var i = 0; i < n; i++) {
      var x = games[0].deals[i], y = games[1].deals[i], seating, diverge = null, actions = [null, null];
      if (!x || !y) seating = "missing";
      else if (!x.acts || !y.acts || x.dealt.join() === "" || (x.dealer !== 0 && x.dealer !== 1) || (y.dealer !== 0 && y.dealer !== 1) ||
               x.turned !== y.turned) seating = "different";
      else if (x.dealer !== y.dealer && x.dealt.join("|") === y.dealt.join("|")) seating = "twinned";  /* no step compares */
      else if (x.dealer === y.dealer ? x.dealt.join("|") !== y.dealt.join("|") : x.dealt.join("|") !== y.dealt.slice().reverse().join("|"))
        seating = "different";
      else {
        seating = x.dealer === y.dealer ? "swapped" : "mirrored";
        var ka = x.acts.map(actionKey), kb = y.acts.map(actionKey);
        if (seating === "mirrored") kb = kb.map(otherSeat);
        var at = 0, len = Math.min(ka.length, kb.length);
        while (at < len && ka[at] === kb[at]) at++;
        if (at < Math.max(ka.length, kb.length)) {
          diverge = at + 2;  /* step 1 shows the hands as dealt, step i + 2 the action i */
          actions = [at < x.acts.length ? actionText(x.acts[at], games[0].m.bots) : null,
            at < y.acts.length ? actionText(y.acts[at], games[1].m.bots) : null];
        }
      }
      out.push({ idx: i, seating: seating, diverge: diverge, actions: actions,
        results: [x ? dealResult(x, games[0].m.bots) : null, y ? dealResult(y, games[1].m.bots) : null] });
    }
    return out;
  }

  var SEATING = { swapped: "the same hands, bots swapped", twinned: "the same hands, bots swapped, the other seat deals",
    mirrored: "each bot the same hand", different: "other cards", missing: "in one game only" };

  function showPair(games) {
    function $(id) { return document.getElementById(id); }
    var g0 = games[0].m, pairing = [g0.bots[0], g0.bots[1]], deals = pairDeals(games);
    var pairId = g0.partner.pair_id;
    document.title = pairing[0] + " vs " + pairing[1] + ", pair " + g0.pair_index + " \u00b7 arena";
    fill($("v-title"), [pairing[0], el("span", "vs", " vs "), pairing[1], el("span", "vs", ", pair " + g0.pair_index + ": both seatings")]);
    fill($("v-status"), ["The two games of duplicate pair ", code(pairId), ": ", matchLink({ id: games[0].id, file: games[0].file }),
      " and ", matchLink({ id: games[1].id, file: games[1].file }), "."]);
    var explain = $("p-explain");
    explain.hidden = false;
    explain.textContent = "Both games were dealt from the same decks: in game 0 " + pairing[0] + " has seat 0 and " + pairing[1] +
      " seat 1, in game 1 the other way round. Where a deal has the same dealer in both games, the same hands lie in the same " +
      "seats, so each bot played the cards the other one played in the other game: the first step at which the actions " +
      "differ is where one bot chose otherwise than the other did with the same cards. Where the dealer differs (it depends " +
      "on the previous deal), the deck was dealt as its twin, so the same hands still lie in the same seats, but the other bot " +
      "leads (in a record of an older arena, each bot holds the same cards in both games there).";
    var first = deals.filter(function (d) { return (d.seating === "swapped" || d.seating === "mirrored") && d.diverge !== null; })[0];
    if (first) {
      $("p-first").hidden = false;
      append($("p-first"), ["The play first diverged in ", stepLink(first.idx, first.diverge, "deal " + (first.idx + 1) + " at step " + first.diverge),
        ": " + (first.actions[0] || "nothing") + " in game 0, " + (first.actions[1] || "nothing") + " in game 1."]);
    }
    var t = table("Each deal in both games: who won it, how it was dealt, and the first step at which the actions differ.",
      ["#Deal", "Game 0 (" + games[0].m.bots[0] + " in seat 0)", "Game 1 (" + games[1].m.bots[0] + " in seat 0)", "Dealt", "Play diverged"],
      deals.map(function (d) {
        var alike = d.seating === "swapped" || d.seating === "mirrored";
        return [[stepLink(d.idx, d.diverge || 1, String(d.idx + 1))], d.results[0], d.results[1], SEATING[d.seating],
          !alike ? null : d.diverge === null ? "never: the same play"
            : [stepLink(d.idx, d.diverge, "at step " + d.diverge), ": " + (d.actions[0] || "nothing") + " / " + (d.actions[1] || "nothing")]];
      }), "pair-deals");
    t.querySelector("table").id = "pair-deals";
    Array.prototype.forEach.call(t.querySelectorAll("tbody tr"), function (tr, i) { tr.setAttribute("data-seating", deals[i].seating); });
    $("p-table").appendChild(t);
    var replays = games.map(function (g) { var r = rebuildReplay(g); r.file = g.file; return r; });
    ["a", "b"].forEach(function (p, g) {
      var m = games[g].m, head = $(p + "-head");
      append(head, ["Game " + g + ": " + m.bots[0] + " (seat 0) vs " + m.bots[1] + " (seat 1) \u00b7 ",
        matchLink({ id: games[g].id, file: games[g].file }), m.winner ? " \u00b7 " + m.winner + " won" : "", " "]);
      var open = a("match.html#" + games[g].file, "open at this step", "small step-link");
      open.id = p + "-open";
      head.appendChild(open);
      $(p + "-game").setAttribute("data-match", games[g].id);
      buildBoard($(p + "-board"), p + "-", m.bots);
    });
    $("pair").hidden = false;
    PairReplay($("pair"), replays, { deals: deals });
  }

  function loadPair(id) {
    return arenaData.load(id).then(function (one) {
      var p = one.m.partner;
      if (!p || !p.pair) throw new Error("match " + one.id + " has no duplicate partner played on the same deals");
      return arenaData.load(p.file).then(function (other) {
        one.file = id;
        other.file = p.file;
        return one.m.game === 1 ? [other, one] : [one, other];
      });
    });
  }

  /* ---------------------------------------------------------------- start */
  document.addEventListener("DOMContentLoaded", function () {
    var loading = [];  /* when every data file is shown (or failed to), <body data-ready="1"> */
    arenaI18n.translatePage();
    if (FOR_PLAYER) homeLink();
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
    var matches = document.getElementById("matches");
    if (matches && document.getElementById("f-bot")) {
      if (arenaMatches.rows) MatchFilter(matches, arenaMatches.rows);
      else document.getElementById("f-count").textContent = "The list cannot be shown: data/matches.js is missing.";
    }
    var viewer = document.getElementById("viewer");
    if (viewer) {
      var id = viewerId(), kind = viewer.getAttribute("data-kind");
      stepBase = "#" + id + "/";
      window.addEventListener("hashchange", function () {
        if (viewerId() !== id) window.location.reload();  /* another match: start afresh */
      });
      if (!id) failed(new Error("the address names no match (" + kind + ".html#<match id>)"));
      else if (kind === "pair") loading.push(loadPair(id).then(showPair).catch(failed));
      else {
        loading.push(arenaData.load(id).then(function (data) {
          data.file = id;
          arenaI18n.names(data.m);
          showMatch(data, data.m.replay ? rebuildReplay(data) : null);
        }).catch(failed));
      }
    }
    Promise.all(loading).then(function () { document.body.setAttribute("data-ready", "1"); });
  });
})();
