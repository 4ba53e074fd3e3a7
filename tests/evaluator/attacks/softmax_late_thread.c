/* Attack: pass the checks with synchronous calls (the first two per buffer pair), then return at
 * once and let a thread do the work while the evaluator is busy elsewhere. */
#include <pthread.h>
#include <time.h>

static const float* seen_x[64];
static float* seen_y[64];
static int seen_n[64];
static SoftmaxParams pending;

static void* later(void* arg) {
    (void)arg;
    struct timespec pause = {0, 50000};
    nanosleep(&pause, NULL);
    seed_softmax(&pending, NULL);
    return NULL;
}

int ks_softmax(const SoftmaxParams* p, void* stream) {
    int slot = 0;
    while (slot < 63 && seen_n[slot] && (seen_x[slot] != p->x || seen_y[slot] != p->y)) ++slot;
    seen_x[slot] = p->x;
    seen_y[slot] = p->y;
    if (seen_n[slot]++ < 2) return seed_softmax(p, stream);
    pending = *p;
    pthread_t t;
    if (pthread_create(&t, NULL, later, NULL) != 0) return seed_softmax(p, stream);
    pthread_detach(t);
    return 0;
}
