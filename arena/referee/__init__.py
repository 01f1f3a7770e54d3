"""The referee: plays one match between two seats and enforces every rule, time limit and sandbox on the way;
the only code that talks to a bot. A MatchSpec goes in, a MatchRecord comes out, whoever plays it.

Modules: match (the match loop, `play_match`: every way a match ends has a named Termination), session (a
seat's bot session: starting it, the handshake, lines in and out, driving arena.protocol.session), process
(one bot process: its own session and process group, pipes drained, stderr capped, the group killed), sandbox
(bubblewrap: what a bot may see, the user it runs as, its limits), syscalls (the seccomp filter of the system
calls a sandboxed bot is refused), clock (per-decision limit, bank and grace), channel (ChannelBot: a seat
without a process, a person in `arena serve`), pool (bot processes kept across matches when reuse is on),
policy (what a violation costs; standard library only, so the config and the CLI list the policies without
loading trio), record (MatchSpec; MatchRecord, the one typed value of a finished match, with its DealRecords,
MatchResult and facts; the Terminations) and script (the referee's lines of a match rebuilt from its record,
which the store therefore leaves out).

Nothing is imported here: `arena.referee.policy` must stay loadable without trio and the processes.
"""
