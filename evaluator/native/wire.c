/* The verdict's stopwatch for the host's replies: wait until a descriptor is readable and take the
 * time at that moment, outside the Python interpreter's lock (ctypes releases it around the call).
 * Timing the same wait in Python stops the clock only when the waiting thread gets the lock back,
 * which another busy thread of the verdict (the float64 checks) can delay by milliseconds. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <time.h>

/* CLOCK_MONOTONIC ns (Python's perf_counter_ns) when fd became readable; 0 after timeout_ms;
 * -errno on an error. */
long long ks_wait_readable(int fd, int timeout_ms) {
    struct pollfd p = {fd, POLLIN, 0};
    for (;;) {
        int n = poll(&p, 1, timeout_ms);
        if (n > 0) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
        }
        if (n == 0) return 0;
        if (errno != EINTR) return -errno;
    }
}
