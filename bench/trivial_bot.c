/* A trivial bot for the benchmarks: always plays the first legal action. C99, no dependencies.
 * `trivial_bot SEED` plays a pseudo-random legal action instead (xorshift from SEED), so bots with
 * different seeds differ (bench/large.py's 20 bots).
 *
 *   make -s -C bench    builds bench/out/trivial_bot
 *
 * It does as little as a correct bot can, so that what `make bench` measures is the referee, not the bot:
 * one read(2) buffer, no allocation per line, one write(2) per reply.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 16];
static size_t len; /* bytes in buf */
static size_t pos; /* start of the next line in buf */

/* The next line (NUL-terminated, without '\n'), or NULL at EOF. Lines longer than the buffer are cut. */
static char *next_line(void) {
    for (;;) {
        char *nl = memchr(buf + pos, '\n', len - pos);
        if (nl) {
            char *line = buf + pos;
            *nl = '\0';
            pos = (size_t)(nl - buf) + 1;
            return line;
        }
        if (pos > 0) { /* move the partial line to the front */
            memmove(buf, buf + pos, len - pos);
            len -= pos;
            pos = 0;
        }
        if (len == sizeof buf - 1) len = 0; /* an over-long line: drop it */
        ssize_t n = read(0, buf + len, sizeof buf - 1 - len);
        if (n <= 0) return NULL;
        len += (size_t)n;
    }
}

static void say(const char *text, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, text, n);
        if (w <= 0) exit(0); /* the referee has gone */
        text += w;
        n -= (size_t)w;
    }
}

static unsigned long long rng; /* 0: always the first legal action */

static size_t pick(size_t count) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (size_t)(rng % count);
}

int main(int argc, char **argv) {
    char out[256];
    char *line;
    if (argc > 1) rng = strtoull(argv[1], NULL, 10) * 2654435761ULL + 88172645463325252ULL;
    while ((line = next_line()) != NULL) {
        if (strncmp(line, "arena ", 6) == 0) {
            say("bot 1 trivial-c\n", 16);
        } else if (strncmp(line, "turn ", 5) == 0) {
            char *legal = strstr(line, " legal=");
            if (!legal) return 1;
            legal += 7;
            if (rng) { /* the k-th of the comma-separated actions */
                size_t count = 1;
                for (const char *c = legal; *c && *c != ' '; c++) count += *c == ',';
                for (size_t k = pick(count); k > 0; k--) legal = strchr(legal, ',') + 1;
            }
            size_t n = strcspn(legal, ", ");
            if (n + 2 > sizeof out) return 1;
            memcpy(out, legal, n);
            char *colon = memchr(out, ':', n);
            if (colon) *colon = ' ';
            out[n] = '\n';
            say(out, n + 1);
        } else if (strcmp(line, "quit") == 0) {
            return 0;
        }
    }
    return 0;
}
