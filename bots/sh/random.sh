#!/bin/sh
# A random bot in plain POSIX sh (runs under dash), written from docs/PROTOCOL.md alone.
#
#   sh bots/sh/random.sh [SEED]      SEED is a non-negative integer; without it the process id ($$) is used
#
# It reads the referee's lines from stdin and answers on stdout. echo is a shell builtin that writes each
# line at once, so there is nothing to flush. Debug output would go to stderr (>&2).

seed=${1:-$$}
set -f  # no filename globbing when splitting lines into words (a hidden draw is written '?')

# Handshake: the referee offers its versions ("arena 1"); we choose 1 and give our name.
read -r hello || exit 0
case " $hello " in
    " arena"*" 1 "*) echo "bot 1 random-sh author=arena" ;;
    *) echo "random-sh: protocol version 1 not offered: $hello" >&2; exit 1 ;;
esac

while IFS= read -r line; do
    case $line in
        turn\ *)
            # Find the legal=... token (looked up by name: new keys may be added to turn lines).
            for token in $line; do
                case $token in legal=*) legal=${token#legal=} ;; esac
            done
            # Split the comma-separated list into $1 $2 ...; $# is the number of legal actions.
            IFS=,
            set -- $legal
            IFS=' '
            # Pick one with a linear congruential generator (sh arithmetic is at least 32-bit signed;
            # dash and bash use 64 bits, so the product cannot overflow).
            seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
            shift $(( seed / 65536 % $# ))
            # "play:Th" -> "play Th"; "close" stays as it is.
            case $1 in
                *:*) echo "${1%%:*} ${1#*:}" ;;
                *) echo "$1" ;;
            esac
            ;;
        quit) exit 0 ;;
        # match, deal, events, deal-end, match-end, error: nothing to answer.
    esac
done
