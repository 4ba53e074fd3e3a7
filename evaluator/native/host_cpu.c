/* The evaluator's native helper on the CPU, loaded by the candidate host and by the verdict.
 *
 * A pool of pthreads that belong to the evaluator (not OpenMP: kernels share OpenMP's pool, and
 * the evaluator must tell its own CPU time from theirs) does the work around each call: poison
 * the outputs, flush the last-level cache, refresh the inputs with the generator (ks_gen.h), and
 * snapshot the outputs the moment a call returns, in an order the kernel cannot predict.
 * `ks_other_cpu_ns` is the CPU time of every thread that is neither the caller nor the pool:
 * kernel threads (OpenMP workers, a candidate's own) -- between calls it should not grow.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "ks_gen.h"

#define KS_MAX_THREADS 256
#define KS_BLOCK 4096

typedef void (*ks_job)(int tid, int nt, void* arg);

static pthread_t pool[KS_MAX_THREADS];
static clockid_t pool_clock[KS_MAX_THREADS];
static int pool_n = 1; /* threads including the caller (tid 0) */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static unsigned long generation = 0;
static int pending = 0;
static ks_job job = 0;
static void* job_arg = 0;

static void* worker(void* p) {
    int tid = (int)(intptr_t)p;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&mu);
        while (generation == seen) pthread_cond_wait(&go, &mu);
        seen = generation;
        ks_job j = job;
        void* a = job_arg;
        pthread_mutex_unlock(&mu);
        j(tid, pool_n, a);
        pthread_mutex_lock(&mu);
        if (--pending == 0) pthread_cond_signal(&done);
        pthread_mutex_unlock(&mu);
    }
    return 0;
}

/* start n - 1 workers (the caller is thread 0); returns the pool size */
int ks_pool_init(int n) {
    if (pool_n > 1) return pool_n;
    if (n > KS_MAX_THREADS) n = KS_MAX_THREADS;
    for (int t = 1; t < n; ++t) {
        if (pthread_create(&pool[t], 0, worker, (void*)(intptr_t)t) != 0) break;
        pthread_getcpuclockid(pool[t], &pool_clock[t]);
        pool_n = t + 1;
    }
    return pool_n;
}

static void run(ks_job j, void* arg) {
    if (pool_n == 1) { j(0, 1, arg); return; }
    pthread_mutex_lock(&mu);
    job = j;
    job_arg = arg;
    pending = pool_n - 1;
    ++generation;
    pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&mu);
    j(0, pool_n, arg);
    pthread_mutex_lock(&mu);
    while (pending) pthread_cond_wait(&done, &mu);
    pthread_mutex_unlock(&mu);
}

static void span(long n, int tid, int nt, long* lo, long* hi) {
    long per = (n + nt - 1) / nt;
    *lo = per * tid < n ? per * tid : n;
    *hi = *lo + per < n ? *lo + per : n;
}

/* ---- fill ------------------------------------------------------------------------------------ */
struct fill_arg { unsigned char* p; long n; int byte; };
static void fill_job(int tid, int nt, void* a) {
    struct fill_arg* f = (struct fill_arg*)a;
    long lo, hi;
    span(f->n, tid, nt, &lo, &hi);
    if (hi > lo) memset(f->p + lo, f->byte, (size_t)(hi - lo));
}
void ks_fill(void* p, long nbytes, int byte) {
    struct fill_arg a = {(unsigned char*)p, nbytes, byte};
    run(fill_job, &a);
}

/* ---- snapshot: copy 4 KiB blocks in a permuted order ------------------------------------------ */
struct copy_arg { unsigned char* dst; const unsigned char* src; long n, blocks; uint64_t a, b; };
static void copy_job(int tid, int nt, void* p) {
    struct copy_arg* c = (struct copy_arg*)p;
    long lo, hi;
    span(c->blocks, tid, nt, &lo, &hi);
    for (long k = lo; k < hi; ++k) {
        long blk = (long)((c->a * (uint64_t)k + c->b) % (uint64_t)c->blocks);
        long off = blk * KS_BLOCK, len = c->n - off < KS_BLOCK ? c->n - off : KS_BLOCK;
        memcpy(c->dst + off, c->src + off, (size_t)len);
    }
}
static uint64_t gcd(uint64_t a, uint64_t b) { while (b) { uint64_t t = a % b; a = b; b = t; } return a; }
void ks_snapshot(void* dst, const void* src, long nbytes, uint64_t seed) {
    struct copy_arg c = {(unsigned char*)dst, (const unsigned char*)src, nbytes, (nbytes + KS_BLOCK - 1) / KS_BLOCK, 1, 0};
    if (c.blocks == 0) return;
    uint64_t h = ks_mix(seed, 1), a = 1 + h % (uint64_t)c.blocks;
    while (gcd(a, (uint64_t)c.blocks) != 1) ++a; /* a stride coprime with the count: a permutation */
    c.a = a;
    c.b = ks_mix(seed, 2) % (uint64_t)c.blocks;
    run(copy_job, &c);
}

/* ---- refresh ------------------------------------------------------------------------------------ */
struct refresh_arg { void* dst; const void* base; long n; int kind; uint64_t seed; };
static void refresh_job(int tid, int nt, void* p) {
    struct refresh_arg* r = (struct refresh_arg*)p;
    long lo, hi;
    span(r->n, tid, nt, &lo, &hi);
    if (r->kind == KS_KIND_COPY) {
        if (hi > lo) memcpy((char*)r->dst + lo, (const char*)r->base + lo, (size_t)(hi - lo));
        return;
    }
    /* one loop per kind, so the compiler can vectorise the hash */
    const uint64_t seed = r->seed;
    switch (r->kind) {
    case KS_KIND_F32: {
        float* d = (float*)r->dst;
        const float* b = (const float*)r->base;
        for (long i = lo; i < hi; ++i) d[i] = b[i] * ks_factor(seed, (uint64_t)i);
        break;
    }
    default:
        for (long i = lo; i < hi; ++i) ks_refresh_one(r->dst, r->base, (uint64_t)i, r->kind, seed);
    }
}
/* n: elements (bytes for KS_KIND_COPY) */
void ks_refresh(void* dst, const void* base, long n, int kind, uint64_t seed) {
    struct refresh_arg r = {dst, base, n, kind, seed};
    run(refresh_job, &r);
}

/* ---- CPU time of threads that are not the evaluator's ------------------------------------------ */
static long long ns_of(clockid_t c) {
    struct timespec ts;
    if (clock_gettime(c, &ts) != 0) return 0;
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
/* call from the thread that calls kernels (thread 0) */
long long ks_other_cpu_ns(void) {
    long long own = ns_of(CLOCK_THREAD_CPUTIME_ID);
    for (int t = 1; t < pool_n; ++t) own += ns_of(pool_clock[t]);
    return ns_of(CLOCK_PROCESS_CPUTIME_ID) - own;
}

long long ks_now_ns(void) { return ns_of(CLOCK_MONOTONIC); }
