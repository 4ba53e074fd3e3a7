/* Attack: an audit that keeps the smallest of a few repeats misses work done off the stream on
 * some calls only: every fourth call runs on a private stream, after the checked first two. */
static int calls;

extern "C" int ks_rmsnorm(const RmsnormParams* p, void* stream) {
    static cudaStream_t own = nullptr;
    if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
    if (++calls > 2 && calls % 4 == 0) return seed_rmsnorm(p, own);
    return seed_rmsnorm(p, stream);
}
