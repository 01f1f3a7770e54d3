/* The yardstick of the referee-overhead row: echo every line back, as cheaply as trivial_bot.c answers.
 * Same buffering and one write(2) per line, so the pipe traffic per round trip is that of a bot. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <unistd.h>

static char buf[1 << 16];

int main(void) {
    size_t len = 0;
    for (;;) {
        ssize_t n = read(0, buf + len, sizeof buf - len);
        if (n <= 0) return 0;
        len += (size_t)n;
        char *start = buf;
        char *nl;
        while ((nl = memchr(start, '\n', len - (size_t)(start - buf))) != NULL) {
            size_t m = (size_t)(nl - start) + 1;
            for (size_t done = 0; done < m;) {
                ssize_t w = write(1, start + done, m - done);
                if (w <= 0) return 0;
                done += (size_t)w;
            }
            start = nl + 1;
        }
        len -= (size_t)(start - buf);
        memmove(buf, start, len);
        if (len == sizeof buf) len = 0;
    }
}
