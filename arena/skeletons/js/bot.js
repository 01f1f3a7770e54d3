#!/usr/bin/env node
// @@NAME@@: a bot for arena (Santase / Sixty-Six / Schnapsen), speaking protocol 1 (docs/PROTOCOL.md).
//
//   node bot.js
//
// Node.js, no npm packages. The referee writes lines to our stdin; we answer on stdout, one line per
// `turn`. On Linux, Node writes to a pipe synchronously, so every line leaves at once. Debug output goes
// to stderr (console.error), which arena keeps.
//
// It plays a little better than random: it declares 66 when it has it, exchanges the trump card, declares
// marriages once it has won a trick, wins a trick with the cheapest card that wins it, and otherwise throws
// its cheapest card. Make it yours in choose().
"use strict";
const readline = require("readline");

const NAME = "@@NAME@@";
const POINTS = { 9: 0, J: 2, Q: 3, K: 4, T: 10, A: 11 }; // card points by rank
const ORDER = "9JQKTA"; // trick-taking order within a suit, lowest first

const send = (line) => process.stdout.write(line + "\n");

// Does `card`, played to `led`, take the trick? (a card is rank + suit: "Th")
function beats(card, led, trump) {
  if (card[1] === led[1]) return ORDER.indexOf(card[0]) > ORDER.indexOf(led[0]);
  return card[1] === trump;
}

// What giving the card away costs: its points, and a trump costs more than any other card.
const cost = (card, trump) => POINTS[card[0]] + (card[1] === trump ? 20 : 0);
const cheapest = (cards, trump) => cards.reduce((a, b) => (cost(b, trump) < cost(a, trump) ? b : a));

// The action to take, as written in the turn's legal= list (play:Th, close, ...).
function choose(turn) {
  const legal = turn.legal.split(",");
  const trump = turn.trump;
  if (legal.includes("declare") && Number(turn.points) >= 66 && Number(turn.tricks) > 0) {
    return "declare"; // only with 66 points and a won trick: a wrong declaration loses the deal
  }
  if (legal.includes("exchange")) return "exchange"; // the 9 (or J) of trumps for the turned card
  const marriages = legal.filter((a) => a.startsWith("marriage:"));
  if (marriages.length > 0 && Number(turn.tricks) > 0) return marriages[0];
  const cards = legal.filter((a) => a.startsWith("play:")).map((a) => a.slice(5));
  if (cards.length === 0) return legal.find((a) => a !== "declare") || legal[0];
  if (turn.led !== "-") {
    const winners = cards.filter((c) => beats(c, turn.led, trump));
    if (winners.length > 0) return "play:" + cheapest(winners, trump);
  }
  return "play:" + cheapest(cards, trump);
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  const [head, ...rest] = line.trim().split(/\s+/);
  if (head === "arena") {
    // the handshake: the versions the referee speaks; we choose 1
    if (!rest.includes("1")) {
      console.error(`${NAME}: the referee does not offer protocol version 1: ${line}`);
      process.exit(1);
    }
    send(`bot 1 ${NAME}`);
  } else if (head === "turn") {
    // our decision: key=value pairs, looked up by name
    const turn = {};
    for (const word of rest) {
      const eq = word.indexOf("=");
      if (eq > 0) turn[word.slice(0, eq)] = word.slice(eq + 1);
    }
    send(choose(turn).replace(":", " ")); // "play:Th" is answered "play Th"
  } else if (head === "quit") {
    process.exit(0);
  }
  // match, deal, events, deal-end, match-end, error: nothing to answer (a new match may follow)
});
rl.on("close", () => process.exit(0)); // end of input: the referee is gone
