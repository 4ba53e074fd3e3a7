/* The launch census: every kernel, memory copy and memory set the candidate host's process ran on
 * the GPU, with its context, stream and device timestamps, from the CUPTI Activity API.
 *
 * Built by the evaluator on the machine that runs it (evaluator/census.py), against that machine's
 * CUPTI headers: the record structures change between CUPTI versions, so the builder reads which
 * structure each activity kind uses from cupti_activity.h and passes it in (KS_KERNEL_T, ...).
 *
 * The host marks a window per call (CUPTI timestamps, ks_census_now) from its first operation for
 * the call to the end of the context-wide synchronize that closes it, flushes once per request, and
 * asks ks_census_attribute() which records fell in which window: on the evaluator's stream (its own
 * operations first and last, the call's in between) or anywhere else (another stream, another
 * context: work the call's events do not bracket). Records are parsed as CUPTI hands over its
 * buffers, in whichever thread that is; a mutex guards the list.
 */
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KS_KERNEL_T
#error "KS_KERNEL_T (the CUPTI record structure of concurrent kernels) must be defined by the builder"
#endif
#ifndef KS_MEMCPY_T
#error "KS_MEMCPY_T must be defined by the builder"
#endif
#ifndef KS_MEMSET_T
#error "KS_MEMSET_T must be defined by the builder"
#endif
#ifndef KS_PEER_T
#error "KS_PEER_T must be defined by the builder"
#endif

#define KS_NAME 48
#define KS_BUFFER (4u << 20)
#define KS_MAX_RECORDS (1u << 22) /* beyond this the census counts records as dropped */

enum { KS_KERNEL = 0, KS_MEMCPY = 1, KS_MEMSET = 2 };

typedef struct {
    uint64_t start, end, bytes;
    uint32_t kind, context, stream;
    char name[KS_NAME];
} ks_record;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ks_record* records;
static size_t count, room;
static uint64_t dropped;
static int started;

static void CUPTIAPI give_buffer(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = (uint8_t*)aligned_alloc(8, KS_BUFFER);
    *size = *buffer ? KS_BUFFER : 0;
    *max_records = 0;
}

static ks_record* slot(void) {
    if (count == room) {
        size_t more = room ? 2 * room : 4096;
        if (more > KS_MAX_RECORDS) return NULL;
        ks_record* grown = (ks_record*)realloc(records, more * sizeof(ks_record));
        if (!grown) return NULL;
        records = grown;
        room = more;
    }
    return &records[count++];
}

/* the fields every kind of record shares, under the same names */
#define KS_TAKE(record_kind, p) \
    (r.kind = (record_kind), r.start = (p)->start, r.end = (p)->end, r.context = (p)->contextId, r.stream = (p)->streamId)

static void CUPTIAPI take_buffer(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
    CUpti_Activity* rec = NULL;
    pthread_mutex_lock(&lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        ks_record r;
        memset(&r, 0, sizeof r);
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            const KS_KERNEL_T* k = (const KS_KERNEL_T*)rec;
            KS_TAKE(KS_KERNEL, k);
            if (k->name) strncpy(r.name, k->name, KS_NAME - 1);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            KS_TAKE(KS_MEMCPY, (const KS_MEMCPY_T*)rec);
            r.bytes = ((const KS_MEMCPY_T*)rec)->bytes;
            break;
        case CUPTI_ACTIVITY_KIND_MEMCPY2:
            KS_TAKE(KS_MEMCPY, (const KS_PEER_T*)rec);
            r.bytes = ((const KS_PEER_T*)rec)->bytes;
            break;
        case CUPTI_ACTIVITY_KIND_MEMSET:
            KS_TAKE(KS_MEMSET, (const KS_MEMSET_T*)rec);
            r.bytes = ((const KS_MEMSET_T*)rec)->bytes;
            break;
        default:
            continue;
        }
        ks_record* into = slot();
        if (into) *into = r; else dropped++;
    }
    size_t lost = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &lost) == CUPTI_SUCCESS) dropped += lost;
    pthread_mutex_unlock(&lock);
    free(buffer);
    (void)size;
}

/* 0, or the CUPTI error that keeps the census from running (ks_census_error names it). */
int ks_census_start(void) {
    static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET};
    if (started) return 0;
    CUptiResult rc = cuptiActivityRegisterCallbacks(give_buffer, take_buffer);
    if (rc != CUPTI_SUCCESS) return (int)rc;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
        rc = cuptiActivityEnable(kinds[i]);
        if (rc != CUPTI_SUCCESS) return (int)rc;
    }
    started = 1;
    return 0;
}

const char* ks_census_error(int code) {
    const char* text = NULL;
    if (cuptiGetResultString((CUptiResult)code, &text) != CUPTI_SUCCESS || !text) return "unknown CUPTI error";
    return text;
}

/* CUPTI's ids of a context and of a stream in it (0 = found). */
int ks_census_ids(CUcontext ctx, CUstream stream, uint32_t* context_id, uint32_t* stream_id) {
    CUptiResult rc = cuptiGetContextId(ctx, context_id);
    if (rc != CUPTI_SUCCESS) return (int)rc;
    return (int)cuptiGetStreamIdEx(ctx, stream, 0, stream_id);
}

/* Now, on the clock CUPTI stamps records with (ns). */
uint64_t ks_census_now(void) {
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return t;
}

/* Hand over every completed record (the synchronize that ended the last call completed them all). */
int ks_census_flush(void) { return (int)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

/* Records taken so far and not yet attributed, and the records CUPTI or the census lost. */
uint64_t ks_census_pending(void) { return count; }
uint64_t ks_census_dropped(void) { return dropped; }

static int by_start(const void* a, const void* b) {
    const ks_record* x = (const ks_record*)a;
    const ks_record* y = (const ks_record*)b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void describe(const ks_record* r, char* what, int what_len) {
    static const char* kinds[] = {"kernel", "memcpy", "memset"};
    if (!what || what_len <= 0 || what[0]) return;
    char text[160];
    int n = r->kind == KS_KERNEL
        ? snprintf(text, sizeof text, "kernel '%s' on stream %u of context %u", r->name, r->stream, r->context)
        : snprintf(text, sizeof text, "%s of %llu bytes on stream %u of context %u", kinds[r->kind],
                   (unsigned long long)r->bytes, r->stream, r->context);
    if (n < 0) return;
    strncpy(what, text, (size_t)what_len - 1);
    what[what_len - 1] = 0;
}

/* Attribute every pending record to the n call windows [starts[i], ends[i]] (sorted, disjoint), by
 * its start, then forget them. Per window: on[i] records on (context, stream), off[i] elsewhere;
 * the call's own work is every off-stream record and the on-stream records after the first head[i]
 * and before the last tail[i] (the host's own operations around the call): its device span
 * [span_start[i], span_end[i]] (0, 0 when it has none or the counts do not add up). Records in no
 * window: *stray_off (off the stream: work the evaluator never does), *stray_on. `what` gets the
 * first off-stream record in words. Returns the records examined. */
int ks_census_attribute(int n, const uint64_t* starts, const uint64_t* ends, const int* head, const int* tail,
                        uint32_t context, uint32_t stream, int* on, int* off, uint64_t* span_start,
                        uint64_t* span_end, int* stray_off, int* stray_on, char* what, int what_len) {
    pthread_mutex_lock(&lock);
    size_t total = count;
    qsort(records, total, sizeof(ks_record), by_start);
    for (int i = 0; i < n; ++i) on[i] = off[i] = 0, span_start[i] = span_end[i] = 0;
    *stray_off = *stray_on = 0;
    if (what && what_len > 0) what[0] = 0;
    /* pass 1: counts per window */
    int w = 0;
    for (size_t j = 0; j < total; ++j) {
        const ks_record* r = &records[j];
        while (w < n && r->start > ends[w]) ++w;
        int ours = r->context == context && r->stream == stream;
        if (w < n && r->start >= starts[w]) {
            if (ours) on[w]++; else off[w]++;
        } else if (ours) {
            (*stray_on)++;
        } else {
            (*stray_off)++;
            describe(r, what, what_len);
        }
    }
    /* pass 2: the call's own records and their span */
    w = 0;
    int seen = 0;
    for (size_t j = 0; j < total; ++j) {
        const ks_record* r = &records[j];
        while (w < n && r->start > ends[w]) ++w, seen = 0;
        if (w >= n || r->start < starts[w]) continue;
        int ours = r->context == context && r->stream == stream;
        int call = 0;
        if (ours) {
            call = on[w] >= head[w] + tail[w] && seen >= head[w] && seen < on[w] - tail[w];
            seen++;
        } else {
            call = 1;
            describe(r, what, what_len);
        }
        if (call && on[w] >= head[w] + tail[w]) {
            if (!span_start[w] || r->start < span_start[w]) span_start[w] = r->start;
            if (r->end > span_end[w]) span_end[w] = r->end;
        }
    }
    count = 0;
    pthread_mutex_unlock(&lock);
    return (int)total;
}

/* A record as CUPTI would hand it over: for the evaluator's tests of the attribution, which need
 * no GPU. (A candidate that calls it only adds work to its own account.) */
void ks_census_inject(int kind, uint32_t context, uint32_t stream, uint64_t start, uint64_t end, uint64_t bytes,
                      const char* name) {
    pthread_mutex_lock(&lock);
    ks_record* r = slot();
    if (r) {
        memset(r, 0, sizeof *r);
        r->kind = (uint32_t)kind; r->context = context; r->stream = stream; r->start = start; r->end = end;
        r->bytes = bytes;
        if (name) strncpy(r->name, name, KS_NAME - 1);
    } else {
        dropped++;
    }
    pthread_mutex_unlock(&lock);
}
