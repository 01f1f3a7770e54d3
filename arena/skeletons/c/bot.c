/* @@NAME@@: a bot for arena (Santase / Sixty-Six / Schnapsen), speaking protocol 1 (docs/PROTOCOL.md).
 *
 *   make && ./bot
 *
 * C99 and the standard library only. The referee writes lines to our stdin; we answer on stdout, one line
 * per `turn`, flushed at once (see send). Debug output goes to stderr, which arena keeps.
 *
 * It plays a little better than random: it declares 66 when it has it, exchanges the trump card, declares
 * marriages once it has won a trick, wins a trick with the cheapest card that wins it, and otherwise throws
 * its cheapest card. Make it yours in choose().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "@@NAME@@"
#define MAX_LINE 8192 /* referee lines are at most 4096 bytes */
#define MAX_ACTIONS 64

static const char ORDER[] = "9JQKTA"; /* trick-taking order within a suit, lowest first */

/* Write one line and flush it: a reply left in the output buffer never reaches the referee. */
static void send(const char *line) {
    printf("%s\n", line);
    fflush(stdout);
}

/* The value of key=value in a turn line, copied into out ("" if the key is missing). Keys are looked up by
 * name: later protocol versions may add keys anywhere in the line. */
static void get(const char *line, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, " %s=", key);
    const char *p = strstr(line, pattern);
    out[0] = '\0';
    if (!p) return;
    p += strlen(pattern);
    size_t n = strcspn(p, " \r\n");
    if (n >= size) n = size - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static int rank_of(const char *card) { return (int)(strchr(ORDER, card[0]) - ORDER); }

static int points_of(const char *card) {
    static const int points[] = {0, 2, 3, 4, 10, 11}; /* 9 J Q K T A */
    return points[rank_of(card)];
}

/* Does card, played to led, take the trick? A card is rank + suit: "Th". */
static int beats(const char *card, const char *led, char trump) {
    if (card[1] == led[1]) return rank_of(card) > rank_of(led);
    return card[1] == trump;
}

/* What giving the card away costs: its points, and a trump costs more than any other card. */
static int cost(const char *card, char trump) { return points_of(card) + (card[1] == trump ? 20 : 0); }

/* The action to take, as written in the legal= list ("play:Th", "close", ...), copied into out. */
static void choose(const char *line, char *out, size_t size) {
    char legal_list[MAX_LINE], trump[8], led[8], points[16], tricks[16];
    char *legal[MAX_ACTIONS];
    int n = 0;
    get(line, "legal", legal_list, sizeof legal_list);
    get(line, "trump", trump, sizeof trump);
    get(line, "led", led, sizeof led);
    get(line, "points", points, sizeof points);
    get(line, "tricks", tricks, sizeof tricks);
    for (char *a = strtok(legal_list, ","); a && n < MAX_ACTIONS; a = strtok(NULL, ",")) legal[n++] = a;

    const char *pick = NULL, *winner = NULL, *cheapest = NULL;
    for (int i = 0; i < n; i++) {
        const char *a = legal[i];
        if (strcmp(a, "declare") == 0) {
            /* only with 66 points and a won trick: a wrong declaration loses the deal */
            if (atoi(points) >= 66 && atoi(tricks) > 0) { pick = a; break; }
        } else if (strcmp(a, "exchange") == 0) {
            pick = a; /* the 9 (or J) of trumps for the turned trump card: we stay to move */
            break;
        } else if (strncmp(a, "marriage:", 9) == 0) {
            if (atoi(tricks) > 0 && !pick) pick = a;
        } else if (strncmp(a, "play:", 5) == 0) {
            const char *card = a + 5;
            if (!cheapest || cost(card, trump[0]) < cost(cheapest + 5, trump[0])) cheapest = a;
            if (strcmp(led, "-") != 0 && beats(card, led, trump[0])
                && (!winner || cost(card, trump[0]) < cost(winner + 5, trump[0]))) winner = a;
        }
    }
    if (!pick) pick = winner ? winner : cheapest;
    if (!pick) pick = n > 0 ? legal[n - 1] : "close";
    snprintf(out, size, "%s", pick);
}

int main(void) {
    static char line[MAX_LINE];
    char action[64];
    setvbuf(stdout, NULL, _IOLBF, 0); /* a pipe is fully buffered by default; send() flushes anyway */
    while (fgets(line, sizeof line, stdin)) {
        if (!strchr(line, '\n') && !feof(stdin)) { /* longer than any referee line: skip the rest */
            int c;
            while ((c = getchar()) != EOF && c != '\n') {}
            continue;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "arena ", 6) == 0) { /* the handshake: the versions the referee speaks; we choose 1 */
            char versions[MAX_LINE + 2];
            snprintf(versions, sizeof versions, "%s ", line + 5);
            if (!strstr(versions, " 1 ")) {
                fprintf(stderr, "%s: the referee does not offer protocol version 1: %s\n", NAME, line);
                return 1;
            }
            send("bot 1 " NAME);
        } else if (strncmp(line, "turn ", 5) == 0) { /* our decision */
            choose(line, action, sizeof action);
            char *colon = strchr(action, ':');
            if (colon) *colon = ' '; /* "play:Th" is answered "play Th" */
            send(action);
        } else if (strcmp(line, "quit") == 0) {
            return 0;
        }
        /* match, deal, events, deal-end, match-end, error: nothing to answer (a new match may follow) */
    }
    return 0;
}
