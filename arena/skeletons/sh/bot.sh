#!/bin/sh
# @@NAME@@: a bot for arena (Santase / Sixty-Six / Schnapsen), speaking protocol 1 (docs/PROTOCOL.md).
#
#   sh bot.sh
#
# Plain POSIX sh (dash runs it). The referee writes lines to our stdin; we answer on stdout, one line per
# `turn`. echo is a shell builtin that writes each line at once, so there is nothing to flush. Debug output
# goes to stderr (>&2), which arena keeps.
#
# It plays a little better than random: it declares 66 when it has it, exchanges the trump card, declares
# marriages once it has won a trick, wins a trick with the cheapest card that wins it, and otherwise throws
# its cheapest card. Make it yours in choose.

NAME=@@NAME@@
set -f  # no filename globbing when lines are split into words (a hidden draw is written '?')

# Functions set variables rather than print: a $(...) would start a process for every call.

# rank=<place of card $1 in the trick-taking order within a suit: 9 J Q K T A>, pts=<its card points>
rank() {
    case $1 in
        9*) rank=0 pts=0 ;; J*) rank=1 pts=2 ;; Q*) rank=2 pts=3 ;;
        K*) rank=3 pts=4 ;; T*) rank=4 pts=10 ;; A*) rank=5 pts=11 ;;
    esac
}

# cost=<what giving card $1 away costs when $2 is trumps>: its points, and a trump costs more than any other.
cost() {
    rank "$1"
    cost=$pts
    case $1 in ?"$2") cost=$((cost + 20)) ;; esac
}

# Does card $1, played to the led card $2, take the trick when $3 is trumps? (exit status 0: yes)
beats() {
    if [ "${1#?}" = "${2#?}" ]; then
        rank "$2"; r2=$rank
        rank "$1"
        [ "$rank" -gt "$r2" ]
    else
        [ "${1#?}" = "$3" ]
    fi
}

# action=<the action to take for the turn's fields, as written in its legal= list (play:Th, close, ...)>
choose() {
    best=; best_cost=999; win=; win_cost=999; marriage=; action=
    IFS=,
    for a in $legal; do
        case $a in
            declare)
                # only with 66 points and a won trick: a wrong declaration loses the deal
                if [ "$points" -ge 66 ] && [ "$tricks" -gt 0 ]; then action=declare; fi ;;
            exchange) action=${action:-exchange} ;;  # the 9 (or J) of trumps for the turned card
            marriage:*) marriage=${marriage:-$a} ;;
            play:*)
                card=${a#play:}
                cost "$card" "$trump"
                if [ "$cost" -lt "$best_cost" ]; then best=$a; best_cost=$cost; fi
                if [ "$led" != - ] && [ "$cost" -lt "$win_cost" ] && beats "$card" "$led" "$trump"; then
                    win=$a; win_cost=$cost
                fi ;;
        esac
    done
    IFS=' '
    if [ -n "$action" ]; then return; fi
    if [ -n "$marriage" ] && [ "$tricks" -gt 0 ]; then action=$marriage; return; fi
    action=${win:-$best}
    action=${action:-${legal##*,}}
}

while IFS= read -r line; do
    case $line in
        "arena "*)
            # the handshake: the versions the referee speaks; we choose 1
            case "$line " in
                *" 1 "*) echo "bot 1 $NAME" ;;
                *) echo "$NAME: the referee does not offer protocol version 1: $line" >&2; exit 1 ;;
            esac ;;
        "turn "*)
            # our decision: key=value pairs, looked up by name
            for token in $line; do
                case $token in
                    legal=*) legal=${token#legal=} ;;
                    trump=*) trump=${token#trump=} ;;
                    led=*) led=${token#led=} ;;
                    points=*) points=${token#points=} ;;
                    tricks=*) tricks=${token#tricks=} ;;
                esac
            done
            choose
            case $action in
                *:*) echo "${action%%:*} ${action#*:}" ;;  # "play:Th" is answered "play Th"
                *) echo "$action" ;;
            esac ;;
        quit) exit 0 ;;
        # match, deal, events, deal-end, match-end, error: nothing to answer (a new match may follow)
    esac
done
