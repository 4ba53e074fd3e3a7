/* Attack: a helper thread started at load time stays busy between calls (it would do work the
 * timer does not see, and steals cycles from the seed's calls). The entry itself is the seed. */
#include <pthread.h>

static volatile unsigned long spins;

static void* spin(void* arg) {
    (void)arg;
    for (;;) spins = spins * 6364136223846793005ul + 1;
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, spin, NULL) == 0) pthread_detach(t);
}

int ks_softmax(const SoftmaxParams* p, void* stream) { return seed_softmax(p, stream); }
