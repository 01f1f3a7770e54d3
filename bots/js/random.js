#!/usr/bin/env node
// A random bot for Node.js, no npm packages: plays a uniformly random legal action.
//
//   node bots/js/random.js [SEED]      SEED defaults to 0
//
// The referee writes lines to our stdin; we answer on stdout. On Linux, writes to a pipe are synchronous
// in Node, so every line leaves at once. Debug output goes to stderr (console.error).
"use strict";
const readline = require("readline");

// mulberry32: a tiny seeded generator, so a seed replays the same game (Math.random cannot be seeded).
let state = Number(process.argv[2] || 0) >>> 0;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const send = (line) => process.stdout.write(line + "\n");
const rl = readline.createInterface({ input: process.stdin, terminal: false });

rl.on("line", (line) => {
  const [head, ...rest] = line.trimEnd().split(" ");
  if (head === "arena") {
    // Handshake: the referee lists its versions; we choose 1.
    if (!rest.includes("1")) {
      console.error(`random.js: version 1 not offered: ${line}`);
      process.exit(1);
    }
    send("bot 1 random-js author=arena");
  } else if (head === "turn") {
    // The turn line is key=value pairs; we only need legal=play:9c,play:Th,close
    const keys = Object.fromEntries(rest.map((kv) => kv.split("=")));
    const legal = keys.legal.split(",");
    const action = legal[Math.floor(random() * legal.length)];
    send(action.replace(":", " ")); // "play:Th" -> "play Th"
  } else if (head === "quit") {
    process.exit(0);
  }
  // match, deal, events, deal-end, match-end, error: nothing to answer.
});
rl.on("close", () => process.exit(0)); // end of input: the referee is gone
