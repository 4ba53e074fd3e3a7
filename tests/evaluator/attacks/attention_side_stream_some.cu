/* Attack: every third call after the checked first two runs on a private stream, so its events
 * see nothing of it. */
static int calls;

extern "C" int ks_attention_fwd(const AttnParams* p, void* stream) {
    static cudaStream_t own = nullptr;
    if (!own) cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
    if (++calls > 2 && calls % 3 == 0) return seed_attention_fwd(p, own);
    return seed_attention_fwd(p, stream);
}
