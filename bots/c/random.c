/* A random bot in C99, no dependencies: plays a uniformly random legal action.
 *
 *   make -C bots/c && bots/c/random [SEED]      SEED defaults to 0
 *
 * The referee writes lines to our stdin; we answer on stdout (flushed after every line, see main) and may
 * write debug output to stderr. docs/PROTOCOL.md is the contract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read one line of any length into *buf (grown as needed), without the newline. Returns 0 at EOF. */
static int read_line(char **buf, size_t *cap) {
    size_t len = 0;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        if (len + 1 >= *cap) {
            *cap = *cap ? 2 * *cap : 8192;
            *buf = realloc(*buf, *cap);
            if (!*buf) { perror("random.c"); exit(1); }
        }
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0) return 0;
    if (!*buf) { *buf = malloc(1); *cap = 1; }
    (*buf)[len] = '\0';
    if (len > 0 && (*buf)[len - 1] == '\r') (*buf)[len - 1] = '\0';
    return 1;
}

/* A small generator of our own (rand() differs between C libraries; this one is the same everywhere). */
static unsigned long long state;
static unsigned next_random(void) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(state >> 33);
}

int main(int argc, char **argv) {
    char *line = NULL;
    size_t cap = 0;
    state = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a pipe is fully buffered by default: flush at each newline */

    /* Handshake: "arena 1 ..." -> choose version 1 and name ourselves. */
    if (!read_line(&line, &cap)) return 0;
    int offered = 0;
    for (char *v = strtok(line, " "); v; v = strtok(NULL, " ")) offered |= strcmp(v, "1") == 0;
    if (!offered) { fprintf(stderr, "random.c: version 1 not offered\n"); return 1; }
    printf("bot 1 random-c author=arena\n");

    while (read_line(&line, &cap)) {
        if (strcmp(line, "quit") == 0) break;
        if (strncmp(line, "turn ", 5) != 0) continue; /* match, deal, events, ...: nothing to answer */

        /* Find the legal=a,b,c token (by name: new keys may appear in turn lines). */
        char *legal = strstr(line, " legal=");
        if (!legal) { fprintf(stderr, "random.c: turn without legal=\n"); return 1; }
        legal += strlen(" legal=");
        legal[strcspn(legal, " ")] = '\0';

        /* Count the entries, pick one, and cut it out of the list. */
        size_t n = 1;
        for (char *p = legal; *p; p++) n += (*p == ',');
        size_t pick = next_random() % n;
        char *action = legal;
        while (pick--) action = strchr(action, ',') + 1;
        action[strcspn(action, ",")] = '\0';

        /* "play:Th" -> "play Th" */
        char *colon = strchr(action, ':');
        if (colon) *colon = ' ';
        printf("%s\n", action);
    }
    free(line);
    return 0;
}
