/* A greedy bot in C99, no dependencies: a port of bots/greedy.py that makes the same decision at every turn.
 *
 *   make -C bots/c && bots/c/greedy
 *   bots/c/greedy --blunder 0.3 --seed 7    a weaker greedy (the house levels, arena/levels.py): a random
 *                                           legal action with probability 0.3 at each turn, as greedy.py
 *
 * It speaks protocol 1.0, as greedy.py does, and keeps no memory beyond the current match's rules: each
 * decision comes from the turn line alone. The rules of thumb (see greedy.py for the reasoning):
 *
 * - declare 66 (variants with declare_66=manual) as soon as it is safe: 66 points and a trick won;
 * - exchange the trump 9 (or J) for the turned card whenever it may;
 * - close the talon when its sure trumps and marriages are enough to reach 66;
 * - declare marriages, the trump one (40) first, but not while a marriage would be void (no trick yet);
 * - answering: take a trick worth taking with the cheapest card that wins it; otherwise throw the cheapest
 *   card, never an ace or a ten while something else will do;
 * - leading: while the talon is open lead low cards; once it is closed or empty, cash sure winners first.
 *
 * Where several cards are equally good, the first in the legal list wins (as Python's min, max and stable
 * sort choose), so the two bots agree on every decision.
 *
 * The referee writes lines to our stdin; we answer on stdout (flushed after every line, see main) and may
 * write debug output to stderr. docs/PROTOCOL.md is the contract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A card is suit * 6 + rank, as in arena.game.cards: ranks 9 J Q K T A (ascending), suits c d h s. */
enum { NINE, JACK, QUEEN, KING, TEN, ACE };
static const char RANKS[] = "9JQKTA";
static const char SUITS[] = "cdhs";
static const int RANK_POINTS[6] = {0, 2, 3, 4, 10, 11};

#define SUIT(c) ((c) / 6)
#define RANK(c) ((c) % 6)
#define POINTS(c) (RANK_POINTS[RANK(c)])
#define BIT(c) (1UL << (c))
#define ALL_CARDS ((1UL << 24) - 1)

/* The rules greedy needs, from the match line (santase's values until a match line says otherwise). */
static int marriage_points, trump_marriage_points, marriage_pending;

static void default_rules(void) {
    marriage_points = 20;
    trump_marriage_points = 40;
    marriage_pending = 1; /* marriage_without_trick=pending (else void) */
}

/* One legal action: kind is 'd' declare, 'e' exchange, 'c' close, 'm' marriage, 'p' play. */
struct action {
    char kind;
    int card;
};

/* What greedy reads from a turn line. */
struct view {
    unsigned long hand, played; /* card sets */
    int trump, talon, closed, led; /* closed: a seat or -1; led: a card or -1 */
    int points, pending, tricks;
    struct action legal[32];
    int nlegal;
};

/* Read one line of any length into *buf (grown as needed), without the newline. Returns 0 at EOF. */
static int read_line(char **buf, size_t *cap) {
    size_t len = 0;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        if (len + 1 >= *cap) {
            *cap = *cap ? 2 * *cap : 8192;
            *buf = realloc(*buf, *cap);
            if (!*buf) { perror("greedy.c"); exit(1); }
        }
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0) return 0;
    if (!*buf) { *buf = malloc(1); *cap = 1; }
    (*buf)[len] = '\0';
    if (len > 0 && (*buf)[len - 1] == '\r') (*buf)[len - 1] = '\0';
    return 1;
}

/* "Th" -> a card, or -1 ("-" or anything else). */
static int parse_card(const char *s) {
    const char *r = s[0] ? strchr(RANKS, s[0]) : NULL;
    const char *u = s[0] && s[1] ? strchr(SUITS, s[1]) : NULL;
    if (!r || !u) return -1;
    return (int)(u - SUITS) * 6 + (int)(r - RANKS);
}

/* "9c,Th" or "-" -> a card set. */
static unsigned long parse_cards(const char *s) {
    unsigned long set = 0;
    for (; *s; s += (*s == ',')) {
        int c = parse_card(s);
        if (c >= 0) set |= BIT(c);
        s += strcspn(s, ",");
    }
    return set;
}

static void parse_legal(const char *s, struct view *v) {
    v->nlegal = 0;
    for (; *s && v->nlegal < 32; s += (*s == ',')) {
        struct action a = {0, -1};
        if (strncmp(s, "play:", 5) == 0) { a.kind = 'p'; a.card = parse_card(s + 5); }
        else if (strncmp(s, "marriage:", 9) == 0) { a.kind = 'm'; a.card = parse_card(s + 9); }
        else if (strncmp(s, "declare", 7) == 0) a.kind = 'd';
        else if (strncmp(s, "exchange", 8) == 0) a.kind = 'e';
        else if (strncmp(s, "close", 5) == 0) a.kind = 'c';
        if (a.kind) v->legal[v->nlegal++] = a;
        s += strcspn(s, ",");
    }
}

/* Split a turn line into its key=value tokens (by name: new keys may appear anywhere). */
static void parse_turn(char *line, struct view *v) {
    memset(v, 0, sizeof *v);
    v->closed = v->led = -1;
    for (char *tok = strtok(line, " "); tok; tok = strtok(NULL, " ")) {
        char *val = strchr(tok, '=');
        if (!val) continue;
        *val++ = '\0';
        if (strcmp(tok, "hand") == 0) v->hand = parse_cards(val);
        else if (strcmp(tok, "played") == 0) v->played = parse_cards(val);
        else if (strcmp(tok, "trump") == 0) v->trump = val[0] ? (int)(strchr(SUITS, val[0]) - SUITS) : 0;
        else if (strcmp(tok, "talon") == 0) v->talon = atoi(val);
        else if (strcmp(tok, "closed") == 0) v->closed = strcmp(val, "-") == 0 ? -1 : atoi(val);
        else if (strcmp(tok, "led") == 0) v->led = parse_card(val);
        else if (strcmp(tok, "points") == 0) v->points = atoi(val);
        else if (strcmp(tok, "pending") == 0) v->pending = atoi(val);
        else if (strcmp(tok, "tricks") == 0) v->tricks = atoi(val);
        else if (strcmp(tok, "legal") == 0) parse_legal(val, v);
    }
}

static void parse_match(char *line) {
    default_rules();
    for (char *tok = strtok(line, " "); tok; tok = strtok(NULL, " ")) {
        char *val = strchr(tok, '=');
        if (!val) continue;
        *val++ = '\0';
        if (strcmp(tok, "marriage_points") == 0) marriage_points = atoi(val);
        else if (strcmp(tok, "trump_marriage_points") == 0) trump_marriage_points = atoi(val);
        else if (strcmp(tok, "marriage_without_trick") == 0) marriage_pending = strcmp(val, "pending") == 0;
    }
}

/* ------------------------------------------------------------------ greedy's rules of thumb */

/* Does card, played to led, win the trick? */
static int beats(int card, int led, int trump) {
    if (SUIT(card) == SUIT(led)) return RANK(card) > RANK(led);
    return SUIT(card) == trump;
}

/* A K or Q whose partner is in the hand: playing it would give up a marriage. */
static int in_pair(int card, unsigned long hand) {
    if (RANK(card) == KING) return (hand & BIT(SUIT(card) * 6 + QUEEN)) != 0;
    if (RANK(card) == QUEEN) return (hand & BIT(SUIT(card) * 6 + KING)) != 0;
    return 0;
}

/* No unseen card of its suit (not in hand, played, or led; the opponent's or the talon's) ranks above it. */
static int sure_winner(int card, const struct view *v) {
    unsigned long unseen = ALL_CARDS & ~v->hand & ~v->played & (v->led >= 0 ? ~BIT(v->led) : ALL_CARDS);
    for (int r = RANK(card) + 1; r < 6; r++)
        if (unseen & BIT(SUIT(card) * 6 + r)) return 0;
    return 1;
}

static int marriage_value(int suit, int trump) {
    return suit == trump ? trump_marriage_points : marriage_points;
}

/* Close when sure trump tricks and the marriages in hand bring us to 66. */
static int should_close(const struct view *v) {
    int total = v->points + v->pending, sure = 0;
    for (int c = 0; c < 24; c++) {
        if (!(v->hand & BIT(c))) continue;
        if (SUIT(c) == v->trump && sure_winner(c, v)) { sure = 1; total += POINTS(c); }
        if (RANK(c) == KING && in_pair(c, v->hand)) total += marriage_value(SUIT(c), v->trump);
    }
    return total >= 66 && (sure || v->tricks > 0);
}

/* The sort keys of greedy.py as numbers (a smaller number sorts first); ties go to the earlier card. */
static int winner_key(int c, const struct view *v) { /* follow suit rather than trump, keep marriages, low */
    return (SUIT(c) != SUIT(v->led)) * 100 + in_pair(c, v->hand) * 10 + RANK(c);
}
static int loser_key(int c, const struct view *v) { /* no trump, no ace or ten, no marriage card, few points */
    return (SUIT(c) == v->trump) * 1000 + (RANK(c) >= TEN) * 100 + in_pair(c, v->hand) * 20 + POINTS(c);
}
static int lead_key(int c, const struct view *v) { /* lead cheap: no ace or ten, no trump, no marriage card */
    return (RANK(c) >= TEN) * 1000 + (SUIT(c) == v->trump) * 100 + in_pair(c, v->hand) * 20 + POINTS(c);
}

static int answer(const struct view *v, const int *cards, int n) {
    int led = v->led, trump = v->trump, best = -1, loser = -1;
    for (int i = 0; i < n; i++) {
        int c = cards[i];
        if (beats(c, led, trump)) {
            if (best < 0 || winner_key(c, v) < winner_key(best, v)) best = c;
        } else if (loser < 0 || loser_key(c, v) < loser_key(loser, v)) {
            loser = c;
        }
    }
    if (best < 0) return loser;
    int reaches_66 = v->points + v->pending + POINTS(led) + POINTS(best) >= 66;
    int worth_it = RANK(led) >= TEN || (SUIT(best) == SUIT(led) && SUIT(led) != trump);
    int throw_is_costly = loser < 0 || SUIT(loser) == trump || RANK(loser) >= TEN;
    return reaches_66 || worth_it || throw_is_costly ? best : loser;
}

static int lead(const struct view *v, const int *cards, int n) {
    int best = -1;
    if (v->closed >= 0 || v->talon == 0) {
        /* The follow rules apply: cash sure winners, trumps first, then the highest. */
        for (int i = 0; i < n; i++) {
            int c = cards[i];
            if (!sure_winner(c, v)) continue;
            int key = (SUIT(c) == v->trump) * 10 + RANK(c);
            if (best < 0 || key > (SUIT(best) == v->trump) * 10 + RANK(best)) best = c;
        }
        if (best >= 0) return best;
    }
    for (int i = 0; i < n; i++)
        if (best < 0 || lead_key(cards[i], v) < lead_key(best, v)) best = cards[i];
    return best;
}

static struct action choose(const struct view *v) {
    int cards[32], n = 0, marriage = -1;
    struct action a = {'p', -1};
    for (int i = 0; i < v->nlegal; i++)
        if (v->legal[i].kind == 'd' && v->points >= 66 && v->tricks > 0) return v->legal[i];
    for (int i = 0; i < v->nlegal; i++)
        if (v->legal[i].kind == 'e') return v->legal[i];
    for (int i = 0; i < v->nlegal; i++)
        if (v->legal[i].kind == 'p') cards[n++] = v->legal[i].card;
    if (v->led >= 0) { a.card = answer(v, cards, n); return a; }
    for (int i = 0; i < v->nlegal; i++)
        if (v->legal[i].kind == 'c' && should_close(v)) return v->legal[i];
    if (v->tricks > 0 || marriage_pending) {
        /* The trump marriage first; lead the queen when the rules let us choose (it is worth less). */
        for (int i = 0; i < v->nlegal; i++) {
            int c = v->legal[i].card, key;
            if (v->legal[i].kind != 'm') continue;
            key = (SUIT(c) == v->trump) * 10 + (RANK(c) == QUEEN);
            if (marriage < 0 || key > (SUIT(v->legal[marriage].card) == v->trump) * 10
                                          + (RANK(v->legal[marriage].card) == QUEEN))
                marriage = i;
        }
        if (marriage >= 0) return v->legal[marriage];
    }
    a.card = lead(v, cards, n);
    return a;
}

/* --blunder P: a random legal action with probability P at each turn, from splitmix64 seeded by --seed:
 * the same generator and the same draws as greedy.py, so the two bots still agree on every decision. */
static double blunder;
static unsigned long long rng_state;

static unsigned long long next_random(void) {
    unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static struct action choose_or_blunder(const struct view *v) {
    if (blunder > 0 && (double)(next_random() >> 11) < blunder * 9007199254740992.0) /* 2^53 */
        return v->legal[next_random() % (unsigned long long)v->nlegal];
    return choose(v);
}

static void reply(struct action a) {
    switch (a.kind) {
    case 'd': printf("declare\n"); break;
    case 'e': printf("exchange\n"); break;
    case 'c': printf("close\n"); break;
    default: printf("%s %c%c\n", a.kind == 'm' ? "marriage" : "play", RANKS[RANK(a.card)], SUITS[SUIT(a.card)]);
    }
}

int main(int argc, char **argv) {
    char *line = NULL;
    size_t cap = 0;
    struct view v;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--blunder") == 0 && i + 1 < argc) {
            blunder = strtod(argv[++i], &end);
            if (*end || !(blunder >= 0 && blunder <= 1)) {
                fprintf(stderr, "greedy.c: --blunder must be between 0 and 1, not %s\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            rng_state = strtoull(argv[++i], &end, 10);
            if (*end || argv[i][0] == '-') { fprintf(stderr, "greedy.c: --seed wants a number, not %s\n", argv[i]); return 2; }
        } else {
            fprintf(stderr, "usage: greedy [--blunder P] [--seed S]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* a pipe is fully buffered by default: flush at each newline */
    default_rules();

    /* Handshake: "arena 1 1.1" -> choose version 1 (1.0) and name ourselves. */
    if (!read_line(&line, &cap)) return 0;
    int offered = 0;
    for (char *t = strtok(line, " "); t; t = strtok(NULL, " ")) offered |= !strcmp(t, "1") || !strcmp(t, "1.0");
    if (!offered) { fprintf(stderr, "greedy.c: the referee does not offer version 1\n"); return 1; }
    printf("bot 1 greedy-c author=arena\n");

    while (read_line(&line, &cap)) {
        if (strcmp(line, "quit") == 0) break;
        if (strncmp(line, "match ", 6) == 0) {
            parse_match(line);
        } else if (strncmp(line, "turn ", 5) == 0) {
            parse_turn(line, &v);
            if (v.nlegal == 0) { fprintf(stderr, "greedy.c: turn without legal=\n"); return 1; }
            reply(choose_or_blunder(&v));
        } else if (strncmp(line, "error ", 6) == 0) {
            fprintf(stderr, "greedy.c: referee %s\n", line);
        } /* deal, events, deal-end, match-end, unknown lines: nothing to answer */
    }
    free(line);
    return 0;
}
