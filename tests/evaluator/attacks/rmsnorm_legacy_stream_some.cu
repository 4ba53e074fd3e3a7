/* Attack: the legacy default stream is not the evaluator's (a non-blocking stream does not wait for
 * it): every fifth call after the checked first two launches there, so its events see nothing. */
static int calls;

extern "C" int ks_rmsnorm(const RmsnormParams* p, void* stream) {
    if (++calls > 2 && calls % 5 == 0) return seed_rmsnorm(p, (void*)cudaStreamLegacy);
    return seed_rmsnorm(p, stream);
}
