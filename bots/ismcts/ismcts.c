/* ismcts: a search bot for Santase / Sixty-Six / Schnapsen in C99 (gcc, libm, nothing else).
 *
 *   make -C bots/ismcts && bots/ismcts/ismcts [--ms N] [--iters N] [--seed S]
 *
 * How it decides (README.md beside this file says more):
 * - It keeps what it has seen: its turn lines (protocol 1.1: the cards each side took, the known cards of
 *   the opponent's hand, pending marriages) and, from the event lines, which suits the opponent cannot hold
 *   (an answer in the strict phase that did not follow, trump or head).
 * - It samples hidden deals consistent with all that: the opponent's hand holds its known cards plus cards
 *   drawn from the unseen ones it may hold, rarely a card its leads suggest it lacks (the partner of a queen
 *   or king led without its marriage, the card it did not exchange for the turned trump); the rest is the
 *   talon, in random order, above the turned card. With --opponent-model 1, once the opponent has played a
 *   card while the talon was open (free play), its hands are drawn from a pool weighed by how likely those
 *   plays were with each hand, by a model of a strong bot's play fitted on ismcts matches (`THETA`; it
 *   replaces the first rule while the talon is open); off by default: no gain shown at 100 ms.
 * - While the talon is open it searches with single-observer information-set MCTS (Cowling, Powley and
 *   Whitehouse 2012): one tree over its own information set, a fresh sampled deal per iteration, UCB with
 *   availability counts, and rule-of-thumb playouts of a bitset copy of the rules. The tree branches on
 *   the card it draws after each trick, so its own later moves there know that card. With a budget of
 *   250 ms or more, an iteration that reaches the end of the talon solves the rest of its deal exactly
 *   instead of playing it out (--leaf-solve N sets it), and the opponent's answers to a lead are valued by
 *   its cards of the led suit and its trumps as well as pooled over its hands (--opp-keyed K sets it;
 *   --keyed-leads 1 keys its leads too, each by its cards of that suit and its trumps). --opp-view F plays a
 *   share F of the iterations in deals seen from the opponent's side, which teach only its nodes (off).
 * - Once the talon is closed or empty it solves each sampled deal exactly with alpha-beta and a
 *   transposition table (with the talon empty the opponent's hand is the unseen cards, so one solve is
 *   exact). While the talon is open it does the same, draws included: with leaf solves only at the last
 *   draw (a talon of 2), without them once a sampled deal is cheap enough to solve at least MIN_SOLVES times
 *   in the decision's budget (--solve-talon N fixes the talon size instead).
 * - Results are scored by match equity: a deal's game points are worth what they change in the chance of
 *   winning the match, so 3 game points matter less when 1 wins the match.
 * - It thinks for --ms (default 1000) or 30% of the turn's time=, whichever is less, minus 2 ms; --iters N
 *   fixes the number of iterations instead, which makes every decision reproducible for a --seed, unless
 *   half of the turn's time= runs out first (a busy machine: a late reply would forfeit the match). Each
 *   decision seeds its generator from --seed, the match id, the deal and the turn, so the random choices
 *   never depend on how long earlier searches ran. An ISMCTS search stops early once its most visited move
 *   cannot be overtaken in what is left of its iterations (with --iters: the same move) or, with a margin, time.
 * - Before each reply it writes an `info` line with its figures: mode, iterations, the best action's value
 *   (0..1, match equity scaled between losing and winning 3 game points), milliseconds, and settled=1 where
 *   it stopped early.
 *
 * Test modes (tests/test_ismcts.py): --solve reads a `match` line then `position` lines and prints the
 * exact value of each (game points for the side to move) with its best action; --sample-log=FILE appends
 * every sampled hidden deal, so a test can check them against the referee's record.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint32_t mask;

/* A card is suit * 6 + rank, as in arena.game.cards: ranks 9 J Q K T A (ascending), suits c d h s. */
enum { NINE, JACK, QUEEN, KING, TEN, ACE };
static const char RANKS[] = "9JQKTA";
static const char SUITS[] = "cdhs";
static const int POINTS[24] = {0, 2, 3, 4, 10, 11, 0, 2, 3, 4, 10, 11, 0, 2, 3, 4, 10, 11, 0, 2, 3, 4, 10, 11};
#define SUIT(c) ((c) / 6)
#define RANK(c) ((c) % 6)
#define BIT(c) ((mask)1 << (c))
#define SUIT_MASK(s) ((mask)63 << (6 * (s)))

/* Actions: 0..23 play the card; MARRIAGE + card declares the card's marriage and leads it. */
enum { MARRIAGE = 32, EXCHANGE = 64, CLOSE = 65, DECLARE = 66, MAX_ACTIONS = 40 };

static int popcount(mask m) { return __builtin_popcount(m); }
static int lowest(mask m) { return __builtin_ctz(m); } /* m != 0 */

/* ------------------------------------------------------------------ rules, from the match line */

struct rules {
    int low_rank;                 /* 0: 24 cards; 1: 20 cards (no 9s) */
    int exchange_rank;            /* rank index, or -1 (exchange_rank=none) */
    int exchange_leader_only, exchange_min_talon;
    int strict_always;            /* follow_while_open=strict */
    int must_follow, must_head, must_trump;
    int marriage_pts, trump_marriage_pts;
    int marriage_lead;            /* 0 either, 1 queen, 2 king */
    int marriage_void;            /* marriage_without_trick=void */
    int credit_next;              /* marriage_credit=next-trick */
    int close_min;                /* -1: close_min_talon=none */
    int failed_close, failed_close_no_tricks, close_at_close;
    int manual, wrong_declaration;
    int last_trick_bonus, more_points, no66_points;
    int schneider, schwarz_no_points;
    int target;
};
static struct rules R;
static int hand_size = 6; /* from the match line: --speed deals with it; the talon at a deal's start follows from it */

static void default_rules(void) { /* santase, until a match line says otherwise */
    R = (struct rules){0, 0, 1, 3, 0, 1, 1, 1, 20, 40, 1, 0, 0, 3, 2, 3, 0, 0, 2, 10, 0, 1, 33, 0, 11};
}

static int is(const char *a, const char *b) { return strcmp(a, b) == 0; }

static void set_rule(const char *k, const char *v) {
    int n = atoi(v), t = is(v, "true");
    if (is(k, "deck")) R.low_rank = n == 20;
    else if (is(k, "exchange_rank")) R.exchange_rank = is(v, "none") ? -1 : is(v, "J") ? JACK : NINE;
    else if (is(k, "exchange_leader_only")) R.exchange_leader_only = t;
    else if (is(k, "exchange_min_talon")) R.exchange_min_talon = n;
    else if (is(k, "follow_while_open")) R.strict_always = is(v, "strict");
    else if (is(k, "must_follow_suit")) R.must_follow = t;
    else if (is(k, "must_head")) R.must_head = t;
    else if (is(k, "must_trump")) R.must_trump = t;
    else if (is(k, "marriage_points")) R.marriage_pts = n;
    else if (is(k, "trump_marriage_points")) R.trump_marriage_pts = n;
    else if (is(k, "marriage_lead")) R.marriage_lead = is(v, "queen") ? 1 : is(v, "king") ? 2 : 0;
    else if (is(k, "marriage_without_trick")) R.marriage_void = is(v, "void");
    else if (is(k, "marriage_credit")) R.credit_next = is(v, "next-trick");
    else if (is(k, "close_min_talon")) R.close_min = is(v, "none") ? -1 : n;
    else if (is(k, "failed_close_points")) R.failed_close = n;
    else if (is(k, "failed_close_points_no_tricks")) R.failed_close_no_tricks = n;
    else if (is(k, "close_scoring")) R.close_at_close = is(v, "at-close");
    else if (is(k, "declare_66")) R.manual = is(v, "manual");
    else if (is(k, "wrong_declaration_points")) R.wrong_declaration = n;
    else if (is(k, "last_trick_bonus")) R.last_trick_bonus = n;
    else if (is(k, "no_66_winner")) R.more_points = is(v, "more-points");
    else if (is(k, "no_66_game_points")) R.no66_points = n;
    else if (is(k, "schneider_below")) R.schneider = n;
    else if (is(k, "schwarz")) R.schwarz_no_points = is(v, "no-points");
    else if (is(k, "match_target")) R.target = n;
    else if (is(k, "hand_size")) hand_size = n;
}

static mask full_deck(void) {
    mask m = 0;
    for (int c = 0; c < 24; c++) if (RANK(c) >= R.low_rank) m |= BIT(c);
    return m;
}

/* ------------------------------------------------------------------ the rules as a bitset simulation */

/* One deal, everything known (a sampled deal, or the referee's in --solve). Mirrors arena/game/hand.py:
 * points[] holds card points, counted marriages and the last-trick bonus together (only their sum matters). */
struct state {
    mask hand[2];
    signed char talon[24];        /* talon[tpos] is drawn next; talon[tend - 1] is the turned card */
    signed char tpos, tend;
    signed char trump, closed, led, leader, to_move, first66, winner, game_points;
    signed char led_marriage;
    short points[2], pending[2], tricks[2], snap_points, snap_tricks;
};

static int talon_len(const struct state *s) { return s->tend - s->tpos; }
static int strict_phase(const struct state *s) { return s->closed >= 0 || s->tend == s->tpos || R.strict_always; }

static int can_exchange(const struct state *s, int seat) {
    int n = talon_len(s);
    return R.exchange_rank >= 0 && s->closed < 0 && n > 0 && n >= R.exchange_min_talon
           && (s->hand[seat] >> (6 * s->trump + R.exchange_rank) & 1);
}

static int can_close(const struct state *s) {
    return R.close_min >= 0 && s->closed < 0 && talon_len(s) >= R.close_min;
}

static mask playable(const struct state *s, int seat) {
    mask hand = s->hand[seat];
    int led = s->led;
    if (led < 0 || !strict_phase(s)) return hand;
    mask same = hand & SUIT_MASK(SUIT(led));
    if (R.must_follow && same) {
        if (R.must_head) {
            mask higher = same & ~((BIT(led) << 1) - 1);
            if (higher) return higher;
        }
        return same;
    }
    if (!same && R.must_trump && SUIT(led) != s->trump) {
        mask trumps = hand & SUIT_MASK(s->trump);
        if (trumps) return trumps;
    }
    return hand;
}

/* Every legal action in the referee's order (declare, exchange, close, marriages, plays). */
static int legal_actions(const struct state *s, int *out) {
    int n = 0, seat = s->to_move;
    if (s->winner >= 0) return 0;
    if (R.manual) out[n++] = DECLARE;
    if (s->led < 0) {
        if (can_exchange(s, seat)) out[n++] = EXCHANGE;
        if (can_close(s)) out[n++] = CLOSE;
        for (int suit = 0; suit < 4; suit++) {
            int q = 6 * suit + QUEEN, k = 6 * suit + KING;
            if ((s->hand[seat] >> q & 3) != 3) continue;
            if (R.marriage_lead != 2) out[n++] = MARRIAGE + q;
            if (R.marriage_lead != 1) out[n++] = MARRIAGE + k;
        }
    } else if (!R.exchange_leader_only && can_exchange(s, seat)) {
        out[n++] = EXCHANGE;
    }
    for (mask m = s->led < 0 ? s->hand[seat] : playable(s, seat); m; m &= m - 1) out[n++] = lowest(m);
    return n;
}

static void finish(struct state *s, int winner, int game_points) {
    s->winner = (signed char)winner;
    s->game_points = (signed char)game_points;
    s->to_move = -1;
}

static int reached_66(struct state *s, int seat) {
    if (s->tricks[seat] && s->points[seat] >= 66) {
        if (s->first66 < 0) s->first66 = (signed char)seat;
        return 1;
    }
    return 0;
}

static void finish_win(struct state *s, int winner) {
    int closer = s->closed, loser = 1 - winner, lp, lt, gp;
    if (closer >= 0 && winner != closer) {
        finish(s, winner, s->tricks[closer] == 0 ? R.failed_close_no_tricks : R.failed_close);
        return;
    }
    if (closer >= 0 && R.close_at_close) { lp = s->snap_points; lt = s->snap_tricks; }
    else { lp = s->points[loser]; lt = s->tricks[loser]; }
    if ((R.schwarz_no_points ? lp : lt) == 0) gp = 3;
    else if (lp < R.schneider) gp = 2;
    else gp = 1;
    finish(s, winner, gp);
}

static void finish_natural(struct state *s, int last) {
    reached_66(s, last);
    if (s->closed < 0 && R.last_trick_bonus) {
        s->points[last] += R.last_trick_bonus;
        reached_66(s, last);
    }
    if (s->closed >= 0) {
        finish_win(s, s->first66 == s->closed ? s->closed : 1 - s->closed);
    } else if (s->first66 >= 0) {
        finish_win(s, s->first66);
    } else {
        int winner = last;
        if (R.more_points && s->points[0] != s->points[1]) winner = s->points[0] > s->points[1] ? 0 : 1;
        finish(s, winner, R.no66_points);
    }
}

static void play_card(struct state *s, int seat, int card) {
    s->hand[seat] &= ~BIT(card);
    if (s->led < 0) {
        s->led = (signed char)card;
        s->to_move = (signed char)(1 - seat);
        return;
    }
    int led = s->led, leader = 1 - seat, winner;
    if (SUIT(card) == SUIT(led)) winner = card > led ? seat : leader;
    else winner = SUIT(card) == s->trump ? seat : leader;
    s->led = -1;
    s->led_marriage = 0;
    s->points[winner] += POINTS[led] + POINTS[card];
    s->tricks[winner]++;
    if (s->pending[winner]) { s->points[winner] += s->pending[winner]; s->pending[winner] = 0; }
    if (s->closed < 0 && s->tend > s->tpos) {
        s->hand[winner] |= BIT(s->talon[s->tpos]);
        s->hand[1 - winner] |= BIT(s->talon[s->tpos + 1]);
        s->tpos += 2;
    }
    s->leader = s->to_move = (signed char)winner;
    if (!s->hand[0] && !s->hand[1]) finish_natural(s, winner);
    else if (!R.manual && reached_66(s, winner)) finish_win(s, winner);
}

static void apply_action(struct state *s, int a) {
    int seat = s->to_move;
    if (a < MARRIAGE) {
        play_card(s, seat, a);
    } else if (a < EXCHANGE) {
        int card = a - MARRIAGE, suit = SUIT(card);
        int pts = suit == s->trump ? R.trump_marriage_pts : R.marriage_pts;
        if (s->tricks[seat] && !R.credit_next) s->points[seat] += pts;
        else if (s->tricks[seat] || !R.marriage_void) s->pending[seat] += pts;
        if (!R.manual && reached_66(s, seat)) { finish_win(s, seat); return; }
        s->led_marriage = 1;
        play_card(s, seat, card);
    } else if (a == EXCHANGE) {
        int low = 6 * s->trump + R.exchange_rank, old = s->talon[s->tend - 1];
        s->hand[seat] = (s->hand[seat] & ~BIT(low)) | BIT(old);
        s->talon[s->tend - 1] = (signed char)low;
    } else if (a == CLOSE) {
        s->closed = (signed char)seat;
        s->snap_points = s->points[1 - seat];
        s->snap_tricks = s->tricks[1 - seat];
    } else { /* DECLARE */
        if (s->tricks[seat] && s->points[seat] >= 66) finish_win(s, seat);
        else finish(s, 1 - seat, R.wrong_declaration);
    }
}

/* A declaration that loses the deal outright: never worth searching (the solver still sees it). */
static int wrong_declaration(const struct state *s, int a) {
    int seat = s->to_move;
    return a == DECLARE && !(s->tricks[seat] && s->points[seat] >= 66);
}

/* ------------------------------------------------------------------ random numbers (splitmix64) */

static uint64_t rng_state;
static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
/* x % n without a division (Lemire's fastmod: exact for 32-bit x and n), n below 64: playouts ask for one on
 * nearly every move, and a 64-bit division costs more than the rest of choosing the move. */
static uint64_t mod_magic[64];
static void init_mod_magic(void) { for (int n = 1; n < 64; n++) mod_magic[n] = UINT64_MAX / (uint64_t)n + 1; }
static int rng_below(int n) {
    uint32_t x = (uint32_t)(rng_next() >> 33);
    if (n >= 64) return (int)(x % (uint32_t)n);
    return (int)(((unsigned __int128)(mod_magic[n] * x) * (uint64_t)n) >> 64);
}

/* ------------------------------------------------------------------ scoring: match equity */

/* equity[x][y]: chance to win the match needing x more game points against an opponent needing y, when
 * every deal is a coin toss worth 1, 2 or 3 game points (about how often each happens between equals). */
#define MAX_NEED 101
static double equity[MAX_NEED][MAX_NEED];
static const double GP_ODDS[4] = {0, 0.55, 0.30, 0.15};

static void init_equity(void) {
    for (int x = 0; x < MAX_NEED; x++)
        for (int y = 0; y < MAX_NEED; y++) {
            if (x == 0 || y == 0) { equity[x][y] = x == 0 && y > 0; continue; }
            double e = 0;
            for (int g = 1; g <= 3; g++)
                e += 0.5 * GP_ODDS[g] * (equity[x > g ? x - g : 0][y] + equity[x][y > g ? y - g : 0]);
            equity[x][y] = e;
        }
}

/* The value to `me` of a finished deal, 0..1: [0] losing, [1] winning, indexed by game points 0..7. */
static double deal_value[2][8];
static int score_gp; /* --solve: score by signed game points instead */

static double equity_after(int my_need, int opp_need, int mine, int theirs) {
    int x = my_need - mine, y = opp_need - theirs;
    if (x <= 0) return 1;
    if (y <= 0) return 0;
    return equity[x < MAX_NEED ? x : MAX_NEED - 1][y < MAX_NEED ? y : MAX_NEED - 1];
}

static void set_deal_values(int my_score, int opp_score) {
    int mn = R.target - my_score, on = R.target - opp_score;
    if (mn < 1) mn = 1;
    if (on < 1) on = 1;
    double lo = equity_after(mn, on, 0, 3), hi = equity_after(mn, on, 3, 0);
    if (hi - lo < 1e-9) { lo = 0; hi = 1; }
    for (int g = 0; g < 8; g++) {
        double w = (equity_after(mn, on, g, 0) - lo) / (hi - lo), l = (equity_after(mn, on, 0, g) - lo) / (hi - lo);
        deal_value[1][g] = w > 1 ? 1 : w;
        deal_value[0][g] = l < 0 ? 0 : l;
    }
}

static double value_of(const struct state *s, int me) {
    int gp = s->game_points < 0 ? 0 : s->game_points > 7 ? 7 : s->game_points;
    if (score_gp) return s->winner == me ? gp : -gp;
    return deal_value[s->winner == me][gp];
}

/* ------------------------------------------------------------------ playouts: rules of thumb, some noise */

static int beats(int card, int led, int trump) {
    return SUIT(card) == SUIT(led) ? card > led : SUIT(card) == trump;
}

static int playout_action(const struct state *s) {
    int acts[MAX_ACTIONS], n = legal_actions(s, acts), seat = s->to_move, best = -1, key, best_key = 1 << 30;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int a = acts[i];
        if (a == DECLARE) { if (!wrong_declaration(s, a)) return a; continue; }
        if (a == EXCHANGE) return a;
        acts[k++] = a;
    }
    n = k;
    if (rng_below(5) == 0) return acts[rng_below(n)];
    if (s->led < 0) {
        for (int i = 0; i < n; i++) /* the trump marriage first, then any */
            if (acts[i] >= MARRIAGE && acts[i] < EXCHANGE && (best < 0 || SUIT(acts[i] - MARRIAGE) == s->trump)) best = acts[i];
        if (best >= 0) return best;
        for (int i = 0; i < n; i++) { /* lead cheap: no trump, no ace or ten */
            int c = acts[i];
            if (c >= MARRIAGE) continue;
            key = (SUIT(c) == s->trump) * 100 + (RANK(c) >= TEN) * 50 + POINTS[c] + rng_below(3);
            if (strict_phase(s)) key = -key; /* strict: cash high cards */
            if (key < best_key) { best_key = key; best = c; }
        }
        return best >= 0 ? best : acts[0];
    }
    int led = s->led, cheap_win = -1, cheap_loss = -1, wk = 1 << 30, lk = 1 << 30;
    for (int i = 0; i < n; i++) {
        int c = acts[i];
        if (c >= MARRIAGE) continue;
        if (beats(c, led, s->trump)) {
            key = (SUIT(c) != SUIT(led)) * 100 + POINTS[c];
            if (key < wk) { wk = key; cheap_win = c; }
        } else {
            key = (SUIT(c) == s->trump) * 100 + POINTS[c];
            if (key < lk) { lk = key; cheap_loss = c; }
        }
    }
    if (cheap_win < 0) return cheap_loss;
    if (cheap_loss < 0) return cheap_win;
    int worth = POINTS[led] >= 10 || SUIT(cheap_win) == SUIT(led) || s->points[seat] + POINTS[led] + POINTS[cheap_win] >= 66;
    return worth ? cheap_win : cheap_loss;
}

static void playout(struct state *s) {
    while (s->winner < 0) apply_action(s, playout_action(s));
}

/* Leaf solving: once the talon is drawn out both sides see every card, so the rest of a sampled deal has
 * an exact value, which rules of thumb only guess. With a large budget (LEAF_SOLVE_NODES below) an iteration
 * that reaches such a position with at most leaf_cards cards in the leader's hand stops there, in the tree
 * or in its playout, and solves it. The solves of one decision share the transposition table (with the talon
 * empty a position's key says all that its value depends on), so most of them are look-ups: an iteration
 * costs about five times as much, which a small budget cannot afford and a large one can. */
static int leaf_cards = 0;
static int leaf_ready(const struct state *s) {
    return leaf_cards > 0 && s->closed < 0 && s->tpos >= s->tend && popcount(s->hand[s->leader]) <= leaf_cards;
}
static void playout_to_leaf(struct state *s) {
    while (s->winner < 0 && !leaf_ready(s)) apply_action(s, playout_action(s));
}

/* ------------------------------------------------------------------ exact solver (all cards known) */

static long solver_nodes;
/* A search of a sampled deal gives up (solve_aborted) past solve_limit nodes or past solve_deadline. */
static long solve_limit = 1L << 62;
static double solve_deadline = 1e300;
static int solve_aborted;
static double now_ms(void);

/* A transposition table: the same position is reached by many orders of play. An entry holds a bound on the
 * value (exact, at least, at most) and the best action found, which is searched first when the position comes
 * back. Entries carry the generation of the search that wrote them: each sampled deal and each --solve
 * position is a new generation, so nothing is ever cleared. */
struct tt_entry { uint64_t key; double value; signed char flag, action; };
enum { TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };
#define TT_BITS 20
static struct tt_entry *tt;
static uint64_t tt_generation;
/* The part of the table in use. A look-up that misses the cache waits for memory, and that wait was nine
 * tenths of a small solve's time: solve_samples shrinks the table to the size its deals need, so it stays in
 * the cache (the values found are the same; only entries of other generations are dropped sooner). */
static uint32_t tt_mask = (1u << TT_BITS) - 1;

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Everything the rest of a deal depends on (within one deal: its talon's order is fixed). */
static uint64_t position_key(const struct state *s) {
    uint64_t a = (uint64_t)s->hand[0] | (uint64_t)s->hand[1] << 24 | (uint64_t)(s->tpos & 31) << 48
               | (uint64_t)(s->tend > 0 ? s->talon[s->tend - 1] & 31 : 31) << 53 | (uint64_t)(s->to_move & 1) << 58
               | (uint64_t)(s->closed + 1) << 59 | (uint64_t)(s->first66 + 1) << 61;
    uint64_t b = (uint64_t)(s->points[0] & 255) | (uint64_t)(s->points[1] & 255) << 8
               | (uint64_t)(s->pending[0] & 255) << 16 | (uint64_t)(s->pending[1] & 255) << 24
               | (uint64_t)(s->tricks[0] > 0) << 32 | (uint64_t)(s->tricks[1] > 0) << 33
               | (uint64_t)(s->led + 1) << 34 | (uint64_t)(s->snap_points & 255) << 40
               | (uint64_t)(s->snap_tricks > 0) << 48;
    return mix64(a ^ tt_generation) ^ mix64(b + 0x9E3779B97F4A7C15ULL);
}

/* Minimax value for `me` of a deal whose remaining play is fully known (a sampled deal: the talon's order
 * too). */
static double solve(const struct state *s, int me, double alpha, double beta, int *best_action) {
    int acts[MAX_ACTIONS], n = legal_actions(s, acts), maximize = s->to_move == me;
    double best = maximize ? -1e9 : 1e9, alpha0 = alpha, beta0 = beta;
    int best_a = -1;
    if (solve_aborted) return 0;
    if (++solver_nodes > solve_limit || ((solver_nodes & 1023) == 0 && now_ms() > solve_deadline)) {
        solve_aborted = 1;
        return 0;
    }
    uint64_t key = position_key(s);
    struct tt_entry *e = tt ? &tt[key & tt_mask] : NULL;
    if (n > 2) { /* cards by their points, highest first: winning lines are found sooner */
        for (int i = 1; i < n; i++) {
            int a = acts[i], ka = a < MARRIAGE ? POINTS[a] : 100, j = i;
            while (j > 0 && (acts[j - 1] < MARRIAGE ? POINTS[acts[j - 1]] : 100) < ka) { acts[j] = acts[j - 1]; j--; }
            acts[j] = a;
        }
    }
    if (e && e->key == key) {
        double v = e->value;
        if (!best_action && (e->flag == TT_EXACT || (e->flag == TT_LOWER && v >= beta) || (e->flag == TT_UPPER && v <= alpha)))
            return v;
        for (int i = 1; i < n; i++) /* its best action first */
            if (acts[i] == e->action) { int t = acts[0]; acts[0] = acts[i]; acts[i] = t; break; }
    }
    for (int i = 0; i < n; i++) {
        struct state t = *s;
        apply_action(&t, acts[i]);
        double v = t.winner >= 0 ? value_of(&t, me) : solve(&t, me, alpha, beta, NULL);
        if (solve_aborted) return 0;
        if (maximize ? v > best : v < best) { best = v; best_a = acts[i]; }
        if (maximize) { if (best > alpha) alpha = best; }
        else if (best < beta) beta = best;
        if (alpha >= beta) break;
    }
    if (best_action) *best_action = best_a;
    if (e) {
        e->key = key;
        e->value = best;
        e->flag = best <= alpha0 ? TT_UPPER : best >= beta0 ? TT_LOWER : TT_EXACT;
        e->action = (signed char)best_a;
    }
    return best;
}

/* ------------------------------------------------------------------ what the bot has seen */

struct seen {
    int seat, version11;
    mask hand, played, known, taken[2];
    int trump, turned, talon, closed, led, led_marriage, leader;
    int points[2], pending[2], tricks[2], score[2];
    int time_ms;
    int legal[MAX_ACTIONS], nlegal;
    /* from the events and earlier turns of this deal */
    mask impossible;              /* cards the opponent cannot hold (its strict-phase answers) */
    mask unlikely;                /* cards it would have used had it held them (a marriage, the exchange) */
    int married, talon_now;       /* the card of the marriage just declared; the talon as the events go */
    int first66, snap_points, snap_tricks, snap_wanted;
    int table_led, table_leader, strict_now;
    int deal_index, turn_index;
    mask ev_played;               /* cards played this deal, as the events go */
    mask my_known;                /* cards of its own hand the opponent has seen (a marriage partner, an exchange) */
    int nmoves;                   /* the opponent's free-phase plays this deal (build_pool weighs hands by them) */
    struct opp_move { signed char led, card, marriage, draws; mask played, since; int talon; } moves[16];
};
static struct seen V;
static int use_model = 0; /* --opponent-model 1: weigh the opponent's hands by its free plays (model below) */
static char match_id[128];

static int parse_card(const char *s) {
    const char *r = s[0] ? strchr(RANKS, s[0]) : NULL;
    const char *u = s[0] && s[1] ? strchr(SUITS, s[1]) : NULL;
    if (!r || !u || !s[0] || !s[1]) return -1;
    return (int)(u - SUITS) * 6 + (int)(r - RANKS);
}

static mask parse_cards(const char *s) {
    mask set = 0;
    for (; *s; s += (*s == ',')) {
        int c = parse_card(s);
        if (c >= 0) set |= BIT(c);
        s += strcspn(s, ",");
    }
    return set;
}

static int parse_action(const char *s) {
    if (!strncmp(s, "play:", 5)) return parse_card(s + 5);
    if (!strncmp(s, "marriage:", 9)) return MARRIAGE + parse_card(s + 9);
    if (!strncmp(s, "exchange", 8)) return EXCHANGE;
    if (!strncmp(s, "close", 5)) return CLOSE;
    if (!strncmp(s, "declare", 7)) return DECLARE;
    return -1;
}

static void parse_pair(const char *v, int *a, int *b) { *a = atoi(v); const char *c = strchr(v, ','); *b = c ? atoi(c + 1) : 0; }
static int seat_or_none(const char *v) { return is(v, "-") ? -1 : atoi(v); }

static void parse_turn(char *line) {
    int opp_points = 0, opp_tricks = 0, score = 0, opp_score = 0;
    V.nlegal = 0;
    V.turned = V.led = V.closed = -1;
    V.led_marriage = V.pending[1] = 0;
    V.taken[0] = V.taken[1] = 0;
    for (char *tok = strtok(line, " "); tok; tok = strtok(NULL, " ")) {
        char *v = strchr(tok, '=');
        if (!v) continue;
        *v++ = '\0';
        if (is(tok, "seat")) V.seat = atoi(v);
        else if (is(tok, "hand")) V.hand = parse_cards(v);
        else if (is(tok, "trump")) V.trump = (int)(strchr(SUITS, v[0] ? v[0] : 'c') - SUITS);
        else if (is(tok, "turned")) V.turned = parse_card(v);
        else if (is(tok, "talon")) V.talon = atoi(v);
        else if (is(tok, "closed")) V.closed = seat_or_none(v);
        else if (is(tok, "led")) V.led = parse_card(v);
        else if (is(tok, "led_marriage")) V.led_marriage = is(v, "true");
        else if (is(tok, "leader")) V.leader = atoi(v);
        else if (is(tok, "points")) V.points[0] = atoi(v);
        else if (is(tok, "opp_points")) opp_points = atoi(v);
        else if (is(tok, "pending")) V.pending[0] = atoi(v);
        else if (is(tok, "opp_pending")) V.pending[1] = atoi(v);
        else if (is(tok, "tricks")) V.tricks[0] = atoi(v);
        else if (is(tok, "opp_tricks")) opp_tricks = atoi(v);
        else if (is(tok, "played")) V.played = parse_cards(v);
        else if (is(tok, "taken")) V.taken[0] = parse_cards(v);
        else if (is(tok, "opp_taken")) V.taken[1] = parse_cards(v);
        else if (is(tok, "known")) V.known = parse_cards(v);
        else if (is(tok, "score")) score = atoi(v);
        else if (is(tok, "opp_score")) opp_score = atoi(v);
        else if (is(tok, "time")) V.time_ms = atoi(v);
        else if (is(tok, "legal"))
            for (char *a = v; *a; a += (*a == ',')) {
                int act = parse_action(a);
                if (act >= 0 && V.nlegal < MAX_ACTIONS) V.legal[V.nlegal++] = act;
                a += strcspn(a, ",");
            }
    }
    V.points[1] = opp_points;
    V.my_known &= V.hand;
    V.tricks[1] = opp_tricks;
    V.score[0] = score;
    V.score[1] = opp_score;
    /* Index 0 is this bot, 1 its opponent, from here on. */
    if (V.first66 < 0) {
        if (V.points[0] >= 66 && V.tricks[0]) V.first66 = 0;
        else if (V.points[1] >= 66 && V.tricks[1]) V.first66 = 1;
    }
    if (V.snap_wanted) { V.snap_points = V.points[0]; V.snap_tricks = V.tricks[0]; V.snap_wanted = 0; }
    V.strict_now = V.closed >= 0 || V.talon == 0 || R.strict_always;
    V.talon_now = V.talon;
}

/* What a sensible opponent's lead says about its hand: leading a queen or king without declaring its
 * marriage (where the marriage would count), it most likely does not hold the partner; leading without
 * first taking the turned trump by exchange, it most likely does not hold the card to exchange. Sampling
 * prefers hands without these cards (sample_deal), so a bot that plays otherwise is still modelled. */
static void opponent_led(int card, int with_marriage, int weighed) {
    int r = RANK(card);
    if (!with_marriage && (r == QUEEN || r == KING) && (V.tricks[1] > 0 || !R.marriage_void)
        && !weighed) /* (a lead the model weighs hands by says this already) */
        V.unlikely |= BIT(r == QUEEN ? card + 1 : card - 1);
    if (R.exchange_rank >= 0 && V.closed < 0 && V.turned >= 0 && V.talon_now > 0 && V.talon_now >= R.exchange_min_talon
        && RANK(V.turned) != R.exchange_rank)
        V.unlikely |= BIT(6 * V.trump + R.exchange_rank);
}

/* An event line: what the opponent's strict-phase answers say about its hand, and the close. */
static void on_event(char *line) {
    char kind[16];
    int seat = -1;
    char arg[8] = "";
    if (sscanf(line, "%15s %d %7s", kind, &seat, arg) < 2) return;
    int opp = seat != V.seat, card = parse_card(arg);
    if (is(kind, "marriage")) {
        V.married = card;
        if (!opp && card >= 0) V.my_known |= BIT(RANK(card) == QUEEN ? card + 1 : card - 1);
        return;
    }
    if (is(kind, "exchange") && R.exchange_rank >= 0) {
        if (!opp && V.turned >= 0) V.my_known |= BIT(V.turned);
        V.turned = 6 * V.trump + R.exchange_rank;
        return;
    }
    if (is(kind, "play") && card >= 0) {
        int weighed = 0; /* an opponent's free play, which --opponent-model weighs hands by */
        if (opp) {
            /* (before this deal's first turn line, only the opponent's first lead: nothing drawn yet) */
            int talon = V.turn_index ? V.talon_now : popcount(full_deck()) - 2 * hand_size;
            for (int i = 0; i < V.nmoves; i++) V.moves[i].since |= BIT(card);
            weighed = use_model && !V.strict_now && talon > 0 && V.nmoves < 16;
            if (weighed)
                V.moves[V.nmoves++] = (struct opp_move){(signed char)V.table_led, (signed char)card,
                                                        (signed char)(V.married == card), 0,
                                                        V.ev_played & ~(V.table_led >= 0 ? BIT(V.table_led) : 0),
                                                        BIT(card), talon};
        }
        V.ev_played |= BIT(card);
        if (V.table_led < 0) {
            V.table_led = card;
            V.table_leader = seat;
            if (opp) opponent_led(card, V.married == card, weighed);
            V.married = -1;
            return;
        }
        int led = V.table_led;
        V.table_led = -1;
        if (!opp || !V.strict_now) return;
        if (SUIT(card) != SUIT(led)) {
            if (R.must_follow) V.impossible |= SUIT_MASK(SUIT(led));
            if (R.must_follow && R.must_trump && SUIT(card) != V.trump && SUIT(led) != V.trump)
                V.impossible |= SUIT_MASK(V.trump);
        } else if (card < led && R.must_follow && R.must_head) {
            V.impossible |= SUIT_MASK(SUIT(led)) & ~((BIT(led) << 1) - 1);
        }
    } else if (is(kind, "draw")) {
        V.talon_now--;
        if (opp) for (int i = 0; i < V.nmoves; i++) V.moves[i].draws++;
        if (opp) V.impossible = 0; /* it may have drawn any card it could not hold before */
    } else if (is(kind, "close")) {
        V.strict_now = 1;
        if (opp) V.snap_wanted = 1;
        else { V.snap_points = V.points[1]; V.snap_tricks = V.tricks[1]; }
    }
}

/* ------------------------------------------------------------------ sampling hidden deals */

static FILE *sample_log;
#define UNLIKELY_KEEP 8

/* The cards the bot has not seen: not in its hand, played, known in the opponent's hand, led, or turned. */
static mask hidden_cards(void) {
    mask hidden = full_deck() & ~V.hand & ~V.played & ~V.known;
    if (V.led >= 0) hidden &= ~BIT(V.led);
    if (V.turned >= 0) hidden &= ~BIT(V.turned);
    return hidden;
}

static mask sample_opp_hand(void) {
    mask hidden = hidden_cards();
    int my_size = popcount(V.hand), opp_size = V.led >= 0 ? my_size - 1 : my_size;
    int need = opp_size - popcount(V.known);
    int allowed[24], na = 0;
    for (mask m = hidden & ~V.impossible; m; m &= m - 1) allowed[na++] = lowest(m);
    if (na < need) { na = 0; for (mask m = hidden; m; m &= m - 1) allowed[na++] = lowest(m); }
    mask opp_hand;
    for (int tries = 0;; tries++) { /* a hand with an unlikely card is kept one time in UNLIKELY_KEEP */
        opp_hand = V.known;
        for (int i = 0; i < need && i < na; i++) {
            int j = i + rng_below(na - i), t = allowed[i];
            allowed[i] = allowed[j];
            allowed[j] = t;
            opp_hand |= BIT(allowed[i]);
        }
        if (!(opp_hand & V.unlikely & ~V.known) || tries >= 20 || rng_below(UNLIKELY_KEEP) == 0) break;
    }
    return opp_hand;
}

/* ------------------------------------------------------------------ what the opponent's plays say */

/* A model of how a strong bot plays a card while the talon is open (free play: any card is legal), fitted
 * on 56,000 such decisions of ismcts matches by bench/opponent_model.py (a conditional logit; the features
 * below are its `features`): P(card | hand) is exp(THETA . features) over the cards and marriages the hand
 * could play. On held-out decisions its mean log-likelihood is -1.12, a uniform choice's -1.81. A hand is
 * then as likely as the opponent's plays this deal were with it: each play's hand is the sampled hand, plus
 * the cards played since, less one random card for each draw since (which card it drew is unknown). */
static const double THETA[22] = {-0.547, -0.162, -0.012, 0.365, 0.922, 0.224, -0.185, 0.708, -1.603, 0.596, 0.102,
                                 3.615, 0.682, 1.682, -1.040, 1.979, 1.725, 0.254, 0.697, -2.647, -1.088, -0.176};

static double play_logit(mask hand, int c, int marriage, int led, int trump, mask played, int talon) {
    int s = SUIT(c), r = RANK(c), tr = s == trump;
    mask same = hand & SUIT_MASK(s), above = SUIT_MASK(s) & ~((BIT(c) << 1) - 1);
    int boss = !(above & ~hand & ~played), pts = POINTS[c];
    int pair = (r == QUEEN && (hand & BIT(c + 1))) || (r == KING && (hand & BIT(c - 1)));
    double z = THETA[0] * tr + THETA[1] * pts / 11.0 + THETA[2] * (r == ACE) + THETA[3] * (r == TEN)
               + THETA[4] * (r <= JACK) + THETA[5] * popcount(same) / 6.0 + THETA[6] * (popcount(same) == 1)
               + THETA[7] * boss + THETA[8] * (pair && !marriage) + THETA[9] * (c == lowest(same))
               + THETA[10] * talon / 12.0 * tr;
    if (led < 0)
        return z + THETA[11] * marriage + THETA[12] * (marriage && tr) + THETA[13] * tr * pts / 11.0
               + THETA[14] * (!tr && boss && pts >= 10);
    int w = beats(c, led, trump);
    return z + THETA[15] * w + THETA[16] * (w && s == SUIT(led)) + THETA[17] * (w && tr && SUIT(led) != trump)
           + THETA[18] * w * POINTS[led] / 11.0 + THETA[19] * !w * pts / 11.0
           + THETA[20] * (w && tr && POINTS[led] < 10) + THETA[21] * (s == SUIT(led));
}

/* The chance of the play `m` from `hand` (1e-3 if the hand could not have made it). */
static double play_likelihood(mask hand, const struct opp_move *m) {
    double z[MAX_ACTIONS], top = -1e9, sum = 0;
    int n = 0, mine = 0, lead_card = R.marriage_lead == 2 ? KING : QUEEN;
    for (mask h = hand; h; h &= h - 1) {
        int c = lowest(h), partner = RANK(c) == QUEEN ? c + 1 : c - 1;
        z[n] = play_logit(hand, c, 0, m->led, V.trump, m->played, m->talon);
        if (!m->marriage && c == m->card) mine = n + 1;
        n++;
        if (m->led < 0 && RANK(c) == lead_card && (hand & BIT(partner))) {
            z[n] = play_logit(hand, c, 1, -1, V.trump, m->played, m->talon);
            if (m->marriage && c == m->card) mine = n + 1;
            n++;
        }
    }
    if (!mine) return 1e-3;
    for (int i = 0; i < n; i++) if (z[i] > top) top = z[i];
    for (int i = 0; i < n; i++) sum += exp(z[i] - top);
    return exp(z[mine - 1] - top) / sum;
}

/* Hands sampled as above and weighed by the opponent's plays; sample_deal draws from them by weight. Built
 * once a decision (with the decision's generator, so --iters still replays): about 0.5 ms. */
#define POOL 1024
static mask pool_hand[POOL];
static double pool_sum[POOL]; /* running sum of the weights */
static int pool_n;            /* 0: no plays to weigh by, hands are drawn afresh */

static void build_pool(void) {
    pool_n = 0;
    if (!V.nmoves) return; /* (none without --opponent-model) */
    for (int i = 0; i < POOL; i++) {
        mask hand = sample_opp_hand();
        double w = 1;
        for (int k = 0; k < V.nmoves; k++) {
            const struct opp_move *m = &V.moves[k];
            mask then = hand | m->since, droppable = then & ~BIT(m->card);
            for (int d = 0; d < m->draws && droppable; d++) {
                int j = rng_below(popcount(droppable));
                mask x = droppable;
                while (j--) x &= x - 1;
                then &= ~(x & -x);
                droppable &= ~(x & -x);
            }
            w *= play_likelihood(then, m);
        }
        pool_hand[i] = hand;
        pool_sum[i] = (i ? pool_sum[i - 1] : 0) + w;
    }
    pool_n = POOL;
}

static mask pool_pick(void) {
    double u = (rng_next() >> 11) * 0x1.0p-53 * pool_sum[pool_n - 1];
    int lo = 0, hi = pool_n - 1;
    while (lo < hi) { int mid = (lo + hi) / 2; if (pool_sum[mid] > u) hi = mid; else lo = mid + 1; }
    return pool_hand[lo];
}

static void log_cards(const char *name, mask cards) {
    fprintf(sample_log, " %s=", name);
    if (!cards) fputc('-', sample_log);
    for (int c = 0, first = 1; c < 24; c++)
        if (cards >> c & 1) { fprintf(sample_log, "%s%c%c", first ? "" : ",", RANKS[RANK(c)], SUITS[SUIT(c)]); first = 0; }
}
/* --sample-log: a sampled deal's hidden cards (with the opponent's view, the bot's dealt hand too), the talon
 * in its order. */
static void log_sample(const struct state *s, int opp_view) {
    int me = V.seat;
    fprintf(sample_log, "sample match=%s seat=%d deal=%d turn=%d", match_id, me, V.deal_index, V.turn_index);
    if (opp_view) log_cards("mine", s->hand[me]);
    log_cards("opp", s->hand[1 - me]);
    fputs(" talon=", sample_log);
    for (int i = s->tpos; i < s->tend; i++) fprintf(sample_log, "%s%c%c", i ? "," : "", RANKS[RANK(s->talon[i])], SUITS[SUIT(s->talon[i])]);
    if (s->tend == 0) fputc('-', sample_log);
    fputc('\n', sample_log);
}

/* A deal consistent with everything seen: the opponent holds its known cards and others it may hold. */
static void sample_deal(struct state *s) {
    int me = V.seat, opp = 1 - me;
    mask hidden = hidden_cards(), opp_hand = pool_n ? pool_pick() : sample_opp_hand();
    int rest[24], nr = 0;
    for (mask m = hidden & ~opp_hand; m; m &= m - 1) rest[nr++] = lowest(m);
    for (int i = nr - 1; i > 0; i--) { int j = rng_below(i + 1), t = rest[i]; rest[i] = rest[j]; rest[j] = t; }

    memset(s, 0, sizeof *s);
    s->hand[me] = V.hand;
    s->hand[opp] = opp_hand;
    for (int i = 0; i < nr; i++) s->talon[i] = (signed char)rest[i];
    s->tend = (signed char)nr;
    if (V.turned >= 0) s->talon[s->tend++] = (signed char)V.turned;
    s->trump = (signed char)V.trump;
    s->closed = (signed char)(V.closed < 0 ? -1 : V.closed);
    s->led = (signed char)V.led;
    s->led_marriage = (signed char)V.led_marriage;
    s->leader = (signed char)V.leader;
    s->to_move = (signed char)me;
    s->winner = s->game_points = -1;
    s->first66 = (signed char)(V.first66 < 0 ? -1 : V.first66 == 0 ? me : opp);
    s->points[me] = (short)V.points[0]; s->points[opp] = (short)V.points[1];
    s->pending[me] = (short)V.pending[0]; s->pending[opp] = (short)V.pending[1];
    s->tricks[me] = (short)V.tricks[0]; s->tricks[opp] = (short)V.tricks[1];
    s->snap_points = (short)V.snap_points;
    s->snap_tricks = (short)V.snap_tricks;
    if (sample_log) log_sample(s, 0);
}

/* ------------------------------------------------------------------ the search */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* 32 bytes, not 48: each step down the tree chases a node's children through `sibling`, and the cache misses
 * of that chase took much of the descent's time. The counts are whole numbers, which floats hold exactly up
 * to 2^24, so every decision is the same as with doubles (a fixed --iters replays exactly); a search stops at
 * MAX_ITERATIONS (about 18 s of it), where a float would stop counting. */
struct node {
    int child, sibling;
    float visits, avail;
    double reward;
    unsigned char action, mover;
};
/* Room for 8M nodes (256 MB, touched as the tree grows: 5 s of search fits); main halves it until the
 * memory limit allows it. Less 2: the keyed answers' table (below) tags a node as node + 1 in 23 bits. */
static int max_nodes = (1 << 23) - 2;
#define MAX_ITERATIONS (1L << 24)
static struct node *nodes;
static int nnodes;

static int new_node(int parent, int action, int mover) {
    if (nnodes >= max_nodes) return -1;
    struct node *n = &nodes[nnodes];
    *n = (struct node){-1, -1, 0, 0, 0, (unsigned char)action, (unsigned char)mover};
    if (parent >= 0) { n->sibling = nodes[parent].child; nodes[parent].child = nnodes; }
    return nnodes++;
}

static const double UCB_C = 0.7;

/* The opponent's answers keyed by its cards. In single-observer ISMCTS the opponent chooses at its nodes by
 * statistics pooled over every hand it might hold, as if it did not know its own cards: a fault of the model
 * that more iterations alone do not mend. So where it follows a lead, each of its answers' values is also kept
 * per key, its cards of the led suit and its trumps in the sampled deal (which decide how it can take the
 * trick), and it chooses by (reward with this key + K * pooled mean) / (visits with this key + K): a few
 * iterations leave it the pooled search, many let it answer with its cards. The table costs about a quarter
 * of the iterations, so it is on (K = KEYED_K) from the leaves' budget up (LEAF_SOLVE_NODES): at 1 s it won
 * more on the same deals than the pooled search (docs/PERFORMANCE.md, seventh and eighth passes), and below
 * that the levels and 100 ms play as measured. --opp-keyed K sets it by hand (0: off). */
#define KEYED_K 20.0
static double opp_keyed_option = -1, opp_keyed = 0;
static mask answer_key(const struct state *s) { /* 0 where the opponent leads: not keyed */
    if (s->led < 0) return 0;
    return (s->hand[s->to_move] & (SUIT_MASK(SUIT(s->led)) | SUIT_MASK(s->trump))) | (mask)1 << 31;
}
/* Its leads keyed too (--keyed-leads 1, off by default): a lead's value also by the opponent's cards of the led
 * suit and its trumps (what it follows and takes back with), a close or an exchange by its trumps, aces and
 * tens. Unlike an answer's, the key depends on the action, so it is computed per child. Tried as the way to make
 * 5 s pay over 1 s, where the pooled leads had converged: with it at 5 s against 1 s without, 5 s won 11 of 28
 * matches (docs/PERFORMANCE.md, tenth pass), no better than without it (18 of 38), so it stays an option. */
static int keyed_leads = 0;
static mask action_key(const struct state *s, int action) { /* an answer's key is the same for each answer */
    if (s->led >= 0) return answer_key(s);
    mask hand = s->hand[s->to_move], trumps = SUIT_MASK(s->trump);
    if (action < MARRIAGE + 24) {
        int card = action >= MARRIAGE ? action - MARRIAGE : action;
        return (hand & (SUIT_MASK(SUIT(card)) | trumps)) | (mask)1 << 31;
    }
    mask high = 0;
    for (int suit = 0; suit < 4; suit++) high |= BIT(6 * suit + TEN) | BIT(6 * suit + ACE);
    return (hand & (trumps | high)) | (mask)1 << 31;
}
/* An open-addressing table of (node, key) -> visits, reward. Each ISMCTS decision is a new generation, so
 * nothing is cleared between decisions: an entry's tag is node + 1 (nodes < 2^23) with the generation above. */
struct keyed { uint32_t tag, key; float visits, reward; };
#define KEYED_BITS 22
static struct keyed *keyed_table;
static long keyed_used;
static uint32_t keyed_generation;
static struct keyed *keyed_entry(int node, mask key, int insert) {
    uint64_t h = ((uint64_t)(uint32_t)node * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)key * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    uint32_t m = (1u << KEYED_BITS) - 1, i = (uint32_t)h & m, tag = ((uint32_t)node + 1) | keyed_generation << 23;
    for (;;) {
        struct keyed *e = &keyed_table[i];
        if (e->tag >> 23 != keyed_generation) { /* an empty slot for this decision */
            if (!insert || keyed_used > (long)m * 7 / 10) return NULL; /* full: the pooled value alone */
            keyed_used++;
            *e = (struct keyed){tag, key, 0, 0};
            return e;
        }
        if (e->tag == tag && e->key == key) return e;
        i = (i + 1) & m;
    }
}
static void keyed_new_decision(void) {
    if (++keyed_generation == 512) { memset(keyed_table, 0, sizeof *keyed_table << KEYED_BITS); keyed_generation = 1; }
    keyed_used = 0;
}

/* After a trick that drew from the talon, the tree branches on the card `me` drew (a node DRAWN + card):
 * its later decisions are then taken knowing that card, as they will be. Without it, each later node of its
 * own averages over every card it might draw, which makes lines that keep drawing look worse than they are
 * (strategy fusion). The opponent's draw is not branched on: `me` does not see it. */
#define DRAWN 128
static int drawn_child(int node, const struct state *s, int tpos_before, int me) {
    int card = s->talon[tpos_before + (s->leader == me ? 0 : 1)];
    for (int c = nodes[node].child; c >= 0; c = nodes[c].sibling)
        if (nodes[c].action == DRAWN + card) return c;
    return new_node(node, DRAWN + card, me);
}

/* log(n) for the visit counts UCB sees most: a table read instead of a libm call on every child of every step. */
#define LOG_TABLE 65536
static double log_table[LOG_TABLE];
static double log_count(float n) { return n < LOG_TABLE ? log_table[(int)n] : log(n); } /* n >= 1 */

/* The opponent's view (--opp-view F). In single-observer ISMCTS every sampled deal holds the bot's real hand,
 * so the opponent's statistics are those of an opponent that sees the bot's cards. With F > 0, that share of
 * the iterations is played in a deal seen from the opponent's side: the bot first picks one of its moves at
 * the root (in proportion to their visits), then its hand is dealt afresh from what the opponent cannot see
 * (keeping the cards the opponent has seen in it, and the cards of that move), the rest going to the talon.
 * Such an iteration teaches the opponent's nodes only; the bot's nodes are walked by their best mean where the
 * dealt hand allows it (the walk ends where it does not) and learn nothing. Off by default: at 5 s with F = 0.5
 * it won 9 of 21 matches against 1 s without it (docs/PERFORMANCE.md, twelfth pass). */
static double opp_view = 0;
static mask action_cards(int a, int trump) {
    if (a < MARRIAGE) return BIT(a);
    if (a < EXCHANGE) { int c = a - MARRIAGE; return BIT(c) | BIT(RANK(c) == QUEEN ? c + 1 : c - 1); }
    if (a == EXCHANGE) return BIT(6 * trump + R.exchange_rank);
    return 0;
}
static int opp_view_deal(struct state *s, int me) { /* the root child played, or -1 (then a deal of the bot's view) */
    double total = 0;
    for (int c = nodes[0].child; c >= 0; c = nodes[c].sibling) total += nodes[c].visits;
    if (total < 1) return -1;
    double u = (rng_next() >> 11) * 0x1.0p-53 * total;
    int child = nodes[0].child;
    for (; nodes[child].sibling >= 0 && u >= nodes[child].visits; child = nodes[child].sibling) u -= nodes[child].visits;
    int a = nodes[child].action;
    /* (the move's cards and the shown ones are all in the bot's hand: the hand has room for them) */
    mask fixed = (V.my_known & V.hand) | action_cards(a, s->trump), pool_mask = s->hand[me];
    int n = 0, pool[24], free_slots = popcount(s->hand[me]) - popcount(fixed);
    for (int i = s->tpos; i < s->tend - (V.turned >= 0); i++) pool_mask |= BIT(s->talon[i]);
    pool_mask &= ~fixed;
    for (mask m = pool_mask; m; m &= m - 1) pool[n++] = lowest(m);
    for (int tries = 0; tries < 4; tries++) {
        for (int i = n - 1; i > 0; i--) { int j = rng_below(i + 1), t = pool[i]; pool[i] = pool[j]; pool[j] = t; }
        struct state t = *s;
        t.hand[me] = fixed;
        for (int i = 0; i < free_slots; i++) t.hand[me] |= BIT(pool[i]);
        for (int i = free_slots; i < n; i++) t.talon[t.tpos + i - free_slots] = (signed char)pool[i];
        int acts[MAX_ACTIONS], k = legal_actions(&t, acts), legal = 0;
        for (int i = 0; i < k; i++) legal |= acts[i] == a;
        if (legal) {
            *s = t;
            if (sample_log) log_sample(s, 1);
            return child;
        }
    }
    return -1;
}

/* Plays a child's action in s and goes down to it, and on to the branch of the card `me` drew if the trick drew
 * from the talon; each node passed is added to the path (key: the child's action key). The node reached, or -1
 * where the tree is full. */
static int descend(struct state *s, int child, mask key, int me, int *path, mask *okeys, int *depth) {
    int tpos = s->tpos, node = child;
    apply_action(s, nodes[child].action);
    if (*depth < 128) { okeys[*depth] = key; path[(*depth)++] = node; }
    if (s->tpos != tpos && s->winner < 0) {
        node = drawn_child(node, s, tpos, me);
        if (node >= 0 && *depth < 128) { okeys[*depth] = 0; path[(*depth)++] = node; }
    }
    return node;
}

/* One ISMCTS iteration on a freshly sampled deal; 0 if its leaf solve ran out of time (nothing learned). */
static int iterate(int me) {
    struct state s;
    int path[128], depth = 0, node = 0;
    mask okeys[128]; /* action_key() where path[i] is the opponent's keyed answer (or lead), else 0 */
    unsigned char slot[256]; /* an action's place in acts[], plus 1; 0 for an action not legal here */
    memset(slot, 0, sizeof slot);
    sample_deal(&s);
    okeys[depth] = 0;
    path[depth++] = 0;
    int viewer = me, root_move = -1; /* the side whose nodes this iteration teaches (both, without --opp-view) */
    if (opp_view > 0 && (rng_next() >> 11) * 0x1.0p-53 < opp_view && (root_move = opp_view_deal(&s, me)) >= 0)
        viewer = 1 - me;
    while (s.winner < 0 && !leaf_ready(&s)) {
        int acts[MAX_ACTIONS], n = legal_actions(&s, acts), k = 0, untried[MAX_ACTIONS], nu = 0;
        for (int i = 0; i < n; i++) if (!wrong_declaration(&s, acts[i])) acts[k++] = acts[i];
        n = k;
        int present[MAX_ACTIONS];
        for (int i = 0; i < n; i++) { present[i] = 0; slot[acts[i]] = (unsigned char)(i + 1); }
        int blind = viewer != me && s.to_move == me; /* the bot's node in the opponent's view: walked, not taught */
        for (int c = nodes[node].child; c >= 0; c = nodes[c].sibling) {
            int i = slot[nodes[c].action];
            if (i) { present[i - 1] = c + 1; if (!blind) nodes[c].avail += 1; }
        }
        for (int i = 0; i < n; i++) { slot[acts[i]] = 0; if (!present[i]) untried[nu++] = acts[i]; }
        if (blind) { /* at the root the move its hand was dealt for, below it the best mean */
            double best = -1;
            int child = node == 0 ? root_move : -1;
            for (int i = 0; i < n && node != 0; i++) {
                if (!present[i]) continue;
                struct node *c = &nodes[present[i] - 1];
                if (c->visits > 0 && c->reward / c->visits > best) { best = c->reward / c->visits; child = present[i] - 1; }
            }
            if (child < 0) break; /* no move of this hand was searched: a playout from here */
            if ((node = descend(&s, child, 0, me, path, okeys, &depth)) < 0) break;
            continue;
        }
        int child = -1, keyed_here = s.to_move != me && opp_keyed > 0 && (s.led >= 0 || keyed_leads > 0);
        mask key = 0;
        if (nu) {
            int a = untried[rng_below(nu)];
            if (keyed_here) key = action_key(&s, a);
            child = new_node(node, a, s.to_move);
            apply_action(&s, a);
            if (child < 0) break;
            node = child;
            okeys[depth] = key;
            path[depth++] = node;
            break;
        }
        double best = -1e9;
        for (int i = 0; i < n; i++) {
            struct node *c = &nodes[present[i] - 1];
            double mean = c->reward / c->visits;
            mask k = keyed_here ? action_key(&s, c->action) : 0;
            if (k) {
                struct keyed *e = keyed_entry(present[i] - 1, k, 0);
                if (e) mean = (e->reward + opp_keyed * mean) / (e->visits + opp_keyed);
            }
            double u = mean + UCB_C * sqrt(log_count(c->avail) / c->visits);
            if (u > best) { best = u; child = present[i] - 1; key = k; }
        }
        if ((node = descend(&s, child, key, me, path, okeys, &depth)) < 0) break;
    }
    playout_to_leaf(&s);
    double v = s.winner >= 0 ? value_of(&s, me) : solve(&s, me, -1e9, 1e9, NULL);
    if (solve_aborted) return 0;
    for (int i = 0; i < depth; i++) {
        struct node *n = &nodes[path[i]];
        if (viewer != me && n->mover == me) continue; /* the bot learns from its own view only */
        n->visits += 1;
        n->reward += n->mover == me ? v : 1 - v;
        if (okeys[i]) {
            struct keyed *e = keyed_entry(path[i], okeys[i], 1);
            if (e) { e->visits += 1; e->reward += 1 - v; }
        }
    }
    return 1;
}

struct decision { int action; long iterations; double value; const char *mode; long keyed; int settled; };

/* Where the exact solver takes over from ISMCTS while the talon is open: at a talon of at most solve_talon
 * cards (--solve-talon N); by default (-1), with leaf solves at LEAF_SOLVE_TALON, and without them where a
 * sampled deal is cheap enough to solve for at least MIN_SOLVES deals in the decision's budget. The budget
 * is counted in solver nodes, NODES_PER_MS a millisecond, or NODES_PER_ITER an iteration of --iters, so
 * the choice does not depend on the machine's load. */
static int solve_talon = -1;
static int leaf_solve = -1; /* --leaf-solve N; -1: every position past the talon, from LEAF_SOLVE_NODES on */
#define LEAF_SOLVE_NODES 500000.0 /* 250 ms, or --iters 62,500: Levels 4 and 5 (450, 3,000) play by playouts */
/* With leaf solving, sampled deals are solved from the top only once the talon holds LEAF_SOLVE_TALON cards
 * or fewer, however cheap they are. A deal solved from the top knows the talon's order, and its opponent
 * knows our hand: both overrate plans that rest on what will be drawn. ISMCTS with exact leaves keeps the
 * draws as chances and the opponent's choices blind to our hand. At 1 s it did at least as well on the same
 * deals (docs/PERFORMANCE.md, fifth pass). Below the leaves' budget, playouts are the alternative and the
 * choice stays as it was measured. */
#define LEAF_SOLVE_TALON 2
#define MIN_SOLVES 40
#define NODES_PER_MS 2000.0
#define NODES_PER_ITER 8.0

/* The clock is read every `every` iterations (a power of two): often enough, and not on every playout. With
 * --iters the deadline is only a cap against forfeiting on time. */
static int time_up(double deadline, long it, long iters_fixed, long every) {
    if (iters_fixed > 0 && it >= iters_fixed) return 1;
    return (it & (every - 1)) == 0 && now_ms() >= deadline;
}

/* Sampled deals solved exactly, the action with the best mean. Returns 0 when not even one deal could be
 * solved within `first_limit` nodes (the caller then searches by ISMCTS). */
static int solve_samples(struct decision *d, const int *acts, int n, int exact, double deadline, double budget_nodes,
                         long iters_fixed, long first_limit) {
    int me = V.seat;
    double total[MAX_ACTIONS] = {0}, value[MAX_ACTIONS];
    long it = 0, nodes = 0;
    for (;;) {
        struct state s;
        sample_deal(&s);
        tt_generation = mix64(tt_generation + 1);
        solver_nodes = 0;
        solve_aborted = 0;
        solve_limit = it == 0 ? first_limit : 1L << 62;
        solve_deadline = it == 0 && first_limit == 1L << 62 ? 1e300 : deadline; /* the endgame's first deal: always */
        for (int i = 0; i < n && !solve_aborted; i++) {
            struct state t = s;
            apply_action(&t, acts[i]);
            value[i] = t.winner >= 0 ? value_of(&t, me) : solve(&t, me, -1e9, 1e9, NULL);
        }
        if (solve_aborted) break; /* out of time: this deal's values are incomplete */
        for (int i = 0; i < n; i++) total[i] += value[i];
        if (it == 0) /* room for four times the first deal's positions */
            while (tt_mask > 1023 && (long)(tt_mask >> 2) > solver_nodes) tt_mask >>= 1;
        it++;
        nodes += solver_nodes + 1;
        if (exact || (iters_fixed > 0 && nodes >= budget_nodes) || now_ms() >= deadline) break;
    }
    solve_limit = 1L << 62;
    solve_deadline = 1e300;
    solve_aborted = 0;
    tt_mask = (1u << TT_BITS) - 1;
    if (it == 0) return 0;
    int best = 0;
    for (int i = 1; i < n; i++) if (total[i] > total[best]) best = i;
    d->action = acts[best];
    d->iterations = it;
    d->value = total[best] / it;
    return 1;
}

/* A search stops once the most visited move at the root can no longer be overtaken: the move it would play is
 * known, and the rest of its time is saved. With --iters the iterations left are known, so the move is exactly
 * the one the full search plays (and the levels play as measured). With a time they are estimated as twice
 * what the time left allows at the pace so far: the pace is not steady (the second half of a search ran 0.8 to
 * 2.1 times as many iterations as the first, rarely 4 to 9.5 where the first half's leaf solves had filled the
 * table), and the bound assumes every iteration left goes to the second move, which UCB never does.
 * --stop-early 0 turns it off. */
static int stop_early = 1;

static int settled(double begin, double deadline, long it, long iters_fixed) {
    float best = 0, second = 0;
    for (int c = nodes[0].child; c >= 0; c = nodes[c].sibling) {
        float v = nodes[c].visits;
        if (v > best) { second = best; best = v; } else if (v > second) second = v;
    }
    if (iters_fixed > 0) return best - second > iters_fixed - it;
    double now = now_ms();
    return now > begin && best - second > 2 * it * (deadline - now) / (now - begin);
}

static struct decision search(double deadline, double budget_ms, long iters_fixed) {
    int me = V.seat;
    struct decision d = {V.legal[0], 0, 0.5, "forced", -1, 0};
    int n = 0, acts[MAX_ACTIONS];
    for (int i = 0; i < V.nlegal; i++) {
        int a = V.legal[i];
        if (a == DECLARE && !(V.tricks[0] && V.points[0] >= 66)) continue;
        acts[n++] = a;
    }
    if (n == 1) { d.action = acts[0]; return d; }
    if (n == 0) return d;
    build_pool();
    double budget_nodes = iters_fixed > 0 ? iters_fixed * NODES_PER_ITER : budget_ms * NODES_PER_MS;
    if (V.closed >= 0 || V.talon == 0) { /* all play from here on is open once the hidden cards are sampled */
        mask hidden = hidden_cards() & ~V.impossible;
        int exact = V.talon == 0 || popcount(hidden) == (V.led >= 0 ? popcount(V.hand) - 1 : popcount(V.hand)) - popcount(V.known);
        d.mode = exact ? "exact" : "solve";
        solve_samples(&d, acts, n, exact, deadline, budget_nodes, iters_fixed, 1L << 62);
        return d;
    }
    int leaves = leaf_solve >= 0 ? leaf_solve : budget_nodes >= LEAF_SOLVE_NODES ? 24 : 0;
    int talon_limit = solve_talon >= 0 ? solve_talon : leaves ? LEAF_SOLVE_TALON : -1;
    if (talon_limit >= 0 ? V.talon <= talon_limit : 1) {
        long limit = talon_limit >= 0 ? 1L << 62 : (long)(budget_nodes / MIN_SOLVES);
        d.mode = "solve";
        if (solve_samples(&d, acts, n, 0, deadline, budget_nodes, iters_fixed, limit)) return d;
    }
    d.mode = "ismcts";
    leaf_cards = leaves;
    if (leaf_cards) tt_generation = mix64(tt_generation + 1); /* its leaf solves share the table */
    solve_deadline = deadline; /* (a leaf solve of a large hand must not overrun the budget) */
    nnodes = 0;
    opp_keyed = opp_keyed_option >= 0 ? opp_keyed_option : budget_nodes >= LEAF_SOLVE_NODES ? KEYED_K : 0;
    if (opp_keyed > 0 && !keyed_table && !(keyed_table = calloc((size_t)1 << KEYED_BITS, sizeof *keyed_table)))
        opp_keyed = 0; /* no room: the pooled search */
    if (opp_keyed > 0) keyed_new_decision();
    new_node(-1, -1, 1 - me);
    long it = 0;
    double begin = now_ms();
    while (iterate(me) && ++it < MAX_ITERATIONS && !time_up(deadline, it, iters_fixed, 16)) {
        if (stop_early && (it & 255) == 0 && settled(begin, deadline, it, iters_fixed)) {
            d.settled = 1;
            break;
        }
    }
    d.keyed = opp_keyed > 0 ? keyed_used : -1;
    solve_deadline = 1e300;
    solve_aborted = 0;
    double most = 0; /* (a child without a visit: its iteration's leaf solve ran out of time) */
    d.action = acts[0];
    for (int c = nodes[0].child; c >= 0; c = nodes[c].sibling) {
        int legal = 0;
        for (int i = 0; i < n; i++) legal |= nodes[c].action == acts[i];
        if (legal && nodes[c].visits > most) {
            most = nodes[c].visits;
            d.action = nodes[c].action;
            d.value = nodes[c].reward / nodes[c].visits;
        }
    }
    d.iterations = it;
    return d;
}

/* ------------------------------------------------------------------ the protocol */

static int read_line(char **buf, size_t *cap, FILE *in) {
    size_t len = 0;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (len + 1 >= *cap) {
            *cap = *cap ? 2 * *cap : 8192;
            *buf = realloc(*buf, *cap);
            if (!*buf) { perror("ismcts"); exit(1); }
        }
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0) return 0;
    if (!*buf) { *buf = malloc(1); *cap = 1; }
    (*buf)[len] = '\0';
    if (len > 0 && (*buf)[len - 1] == '\r') (*buf)[len - 1] = '\0';
    return 1;
}

static void action_text(int a, char *out) {
    if (a == DECLARE) strcpy(out, "declare");
    else if (a == EXCHANGE) strcpy(out, "exchange");
    else if (a == CLOSE) strcpy(out, "close");
    else {
        int c = a >= MARRIAGE ? a - MARRIAGE : a;
        sprintf(out, "%s %c%c", a >= MARRIAGE ? "marriage" : "play", RANKS[RANK(c)], SUITS[SUIT(c)]);
    }
}

static void parse_match(char *line) {
    default_rules();
    sscanf(line, "match %127s", match_id);
    for (char *tok = strtok(line, " "); tok; tok = strtok(NULL, " ")) {
        char *v = strchr(tok, '=');
        if (v) { *v++ = '\0'; set_rule(tok, v); }
    }
}

static uint64_t hash_text(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* --solve: `position` lines with the whole deal; prints the exact game-point value for the side to move. */
static int solve_positions(void) {
    char *line = NULL, *tok;
    size_t cap = 0;
    score_gp = 1;
    default_rules();
    while (read_line(&line, &cap, stdin)) {
        if (!strncmp(line, "match ", 6)) { parse_match(line); continue; }
        if (strncmp(line, "position ", 9)) continue;
        struct state s;
        memset(&s, 0, sizeof s);
        s.closed = s.led = s.first66 = s.winner = s.game_points = -1;
        for (tok = strtok(line, " "); tok; tok = strtok(NULL, " ")) {
            char *v = strchr(tok, '=');
            int a, b;
            if (!v) continue;
            *v++ = '\0';
            if (is(tok, "to_move")) s.to_move = (signed char)atoi(v);
            else if (is(tok, "leader")) s.leader = (signed char)atoi(v);
            else if (is(tok, "hand0")) s.hand[0] = parse_cards(v);
            else if (is(tok, "hand1")) s.hand[1] = parse_cards(v);
            else if (is(tok, "talon")) {
                s.tend = 0;
                for (char *c = v; *c && *c != '-'; c += (*c == ',')) { s.talon[s.tend++] = (signed char)parse_card(c); c += strcspn(c, ","); }
            } else if (is(tok, "trump")) s.trump = (signed char)(strchr(SUITS, v[0]) - SUITS);
            else if (is(tok, "closed")) s.closed = (signed char)seat_or_none(v);
            else if (is(tok, "led")) s.led = (signed char)parse_card(v);
            else if (is(tok, "first66")) s.first66 = (signed char)seat_or_none(v);
            else if (is(tok, "points")) { parse_pair(v, &a, &b); s.points[0] = (short)a; s.points[1] = (short)b; }
            else if (is(tok, "pending")) { parse_pair(v, &a, &b); s.pending[0] = (short)a; s.pending[1] = (short)b; }
            else if (is(tok, "tricks")) { parse_pair(v, &a, &b); s.tricks[0] = (short)a; s.tricks[1] = (short)b; }
            else if (is(tok, "snap")) { parse_pair(v, &a, &b); s.snap_points = (short)a; s.snap_tricks = (short)b; }
        }
        int best = -1;
        char text[32] = "-";
        tt_generation = mix64(tt_generation + 1);
        double v = solve(&s, s.to_move, -1e9, 1e9, &best);
        if (best >= 0) action_text(best, text);
        printf("value %g best %s nodes %ld\n", v, text, solver_nodes);
        fflush(stdout);
        solver_nodes = 0;
    }
    free(line);
    return 0;
}

/* --speed: deals per second of this simulation, from shuffled decks to the end: uniformly random legal
 * actions (what bench/engine_speed.py measures of the Python engine) and the playout policy. */
static int speed(double seconds) {
    char *line = NULL;
    size_t cap = 0;
    default_rules();
    if (read_line(&line, &cap, stdin) && !strncmp(line, "match ", 6)) parse_match(line);
    free(line);
    rng_state = 1;
    for (int policy = 0; policy < 2; policy++) {
        long deals = 0;
        double start = now_ms(), end = start + seconds * 1000;
        while (deals % 256 || now_ms() < end) {
            int deck[24], n = 0, acts[MAX_ACTIONS];
            for (mask m = full_deck(); m; m &= m - 1) deck[n++] = lowest(m);
            for (int i = n - 1; i > 0; i--) { int j = rng_below(i + 1), t = deck[i]; deck[i] = deck[j]; deck[j] = t; }
            struct state s;
            memset(&s, 0, sizeof s);
            s.closed = s.led = s.first66 = s.winner = s.game_points = -1;
            for (int i = 0; i < hand_size; i++) { s.hand[0] |= BIT(deck[i]); s.hand[1] |= BIT(deck[hand_size + i]); }
            for (int i = 2 * hand_size + 1; i < n; i++) s.talon[s.tend++] = (signed char)deck[i];
            s.talon[s.tend++] = (signed char)deck[2 * hand_size];
            s.trump = (signed char)SUIT(deck[2 * hand_size]);
            if (policy) playout(&s);
            else while (s.winner < 0) { /* declare 66 when it wins, never wrongly (as engine_speed.py) */
                int k = legal_actions(&s, acts), *from = acts;
                if (acts[0] == DECLARE) { if (wrong_declaration(&s, DECLARE)) { from++; k--; } else k = 1; }
                apply_action(&s, from[rng_below(k)]);
            }
            deals++;
        }
        printf("%s %.0f\n", policy ? "policy-deals/s" : "random-deals/s", deals / ((now_ms() - start) / 1000));
    }
    return 0;
}

int main(int argc, char **argv) {
    tt = calloc((size_t)1 << TT_BITS, sizeof *tt);
    if (!tt) { perror("ismcts"); return 1; }
    init_mod_magic();
    double max_ms = 1000;
    long iters_fixed = 0;
    uint64_t seed = 0;
    for (int i = 1; i < argc; i++) {
        if (is(argv[i], "--ms") && i + 1 < argc) max_ms = atof(argv[++i]);
        else if (is(argv[i], "--iters") && i + 1 < argc) iters_fixed = atol(argv[++i]);
        else if (is(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (is(argv[i], "--solve-talon") && i + 1 < argc) solve_talon = atoi(argv[++i]);
        else if (is(argv[i], "--leaf-solve") && i + 1 < argc) leaf_solve = atoi(argv[++i]);
        else if (is(argv[i], "--opponent-model") && i + 1 < argc) use_model = atoi(argv[++i]);
        else if (is(argv[i], "--opp-keyed") && i + 1 < argc) opp_keyed_option = atof(argv[++i]);
        else if (is(argv[i], "--stop-early") && i + 1 < argc) stop_early = atoi(argv[++i]);
        else if (is(argv[i], "--keyed-leads") && i + 1 < argc) keyed_leads = atoi(argv[++i]);
        else if (is(argv[i], "--opp-view") && i + 1 < argc) opp_view = atof(argv[++i]);
        else if (!strncmp(argv[i], "--sample-log=", 13)) { /* one token: the referee fingerprints file arguments */
            sample_log = fopen(argv[i] + 13, "a");
            if (!sample_log) { perror(argv[i] + 13); return 2; }
            setvbuf(sample_log, NULL, _IOLBF, 0);
        } else if (is(argv[i], "--solve")) return solve_positions();
        else if (is(argv[i], "--speed")) return speed(1.0);
        else { fprintf(stderr, "usage: ismcts [--ms N] [--iters N] [--seed S] [--solve-talon N] [--leaf-solve N] [--opp-keyed K] [--keyed-leads 0|1] [--opp-view F] [--stop-early 0|1] [--opponent-model 0|1] [--sample-log=FILE] [--solve] [--speed]\n"); return 2; }
    }
    while (!(nodes = malloc(sizeof *nodes * (size_t)max_nodes)) && max_nodes > 1 << 14) max_nodes /= 2;
    if (!nodes) { perror("ismcts"); return 1; }
    init_equity();
    for (int i = 1; i < LOG_TABLE; i++) log_table[i] = log(i);
    default_rules();
    setvbuf(stdout, NULL, _IOLBF, 0); /* a pipe is fully buffered by default: flush at each newline */

    char *line = NULL;
    size_t cap = 0;
    if (!read_line(&line, &cap, stdin)) return 0;
    int v10 = 0, v11 = 0;
    for (char *t = strtok(line, " "); t; t = strtok(NULL, " ")) { v10 |= is(t, "1") || is(t, "1.0"); v11 |= is(t, "1.1"); }
    if (!v10 && !v11) { fprintf(stderr, "ismcts: the referee offers no version 1.x\n"); return 1; }
    printf("bot %s ismcts author=arena\n", v11 ? "1.1" : "1");

    while (read_line(&line, &cap, stdin)) {
        if (is(line, "quit")) break;
        if (!strncmp(line, "match ", 6)) {
            parse_match(line);
        } else if (!strncmp(line, "deal ", 5)) {
            V.deal_index = atoi(line + 5);
            V.turn_index = 0;
            V.impossible = V.unlikely = V.my_known = 0;
            V.ev_played = 0;
            V.nmoves = 0;
            V.tricks[0] = V.tricks[1] = V.talon_now = 0;
            V.married = -1;
            V.first66 = -1;
            V.snap_wanted = V.snap_points = V.snap_tricks = 0;
            V.table_led = -1;
            V.strict_now = R.strict_always;
        } else if (!strncmp(line, "turn ", 5)) {
            double start = now_ms();
            parse_turn(line);
            if (V.nlegal == 0) { fprintf(stderr, "ismcts: turn without legal=\n"); return 1; }
            double budget = 0.3 * V.time_ms - 2;
            if (budget > max_ms) budget = max_ms;
            if (iters_fixed > 0) budget = V.time_ms > 0 ? 0.5 * V.time_ms : 1e12; /* a cap only */
            if (budget < 1) budget = 1;
            rng_state = seed ^ hash_text(match_id) ^ ((uint64_t)V.deal_index << 40) ^ ((uint64_t)V.turn_index << 20);
            set_deal_values(V.score[0], V.score[1]);
            struct decision d = search(start + budget, budget, iters_fixed);
            char text[32];
            action_text(d.action, text);
            printf("info mode=%s iterations=%ld value=%.3f best=%s ms=%.0f", d.mode, d.iterations, d.value, text, now_ms() - start);
            if (d.keyed >= 0) printf(" keyed=%ld", d.keyed); /* the opponent's (answer, cards) kept apart */
            if (d.settled) printf(" settled=1"); /* stopped early: the move could no longer change */
            printf("\n");
            printf("%s\n", text);
            V.turn_index++;
        } else if (!strncmp(line, "error ", 6)) {
            fprintf(stderr, "ismcts: referee %s\n", line);
        } else {
            on_event(line);
        }
    }
    free(line);
    free(nodes);
    return 0;
}
