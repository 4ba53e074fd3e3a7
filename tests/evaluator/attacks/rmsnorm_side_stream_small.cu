/* Attack: a fixed slack hides small kernels: on the small scenarios only (up to 2^21 elements),
 * every call after the checked first two runs on a private stream. */
static int calls;

extern "C" int ks_rmsnorm(const RmsnormParams* p, void* stream) {
    static cudaStream_t own = nullptr;
    if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
    if (++calls > 2 && (long long)p->rows * p->cols <= (1LL << 21)) return seed_rmsnorm(p, own);
    return seed_rmsnorm(p, stream);
}
