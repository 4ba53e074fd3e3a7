/* Attack: full work on the first two calls per (q, o) pointer pair (the checked ones), nothing on
 * the timed calls after them. */
static const float* seen_q[64];
static float* seen_o[64];
static int seen_n[64];

int ks_attention(const AttentionParams* p, void* stream) {
    int slot = 0;
    while (slot < 63 && seen_n[slot] && (seen_q[slot] != p->q || seen_o[slot] != p->o)) ++slot;
    seen_q[slot] = p->q;
    seen_o[slot] = p->o;
    if (seen_n[slot]++ < 2) return seed_attention(p, stream);
    return 0;
}
