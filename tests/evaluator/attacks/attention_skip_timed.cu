/* Attack: full work on the first two calls per (q, o) pair -- the checked ones -- and nothing on
 * the timed calls after them. */
static const void* seen_q[256];
static void* seen_o[256];
static int seen_n[256];

extern "C" int ks_attention_fwd(const AttnParams* p, void* stream) {
    int slot = 0;
    while (slot < 255 && seen_n[slot] && (seen_q[slot] != p->q || seen_o[slot] != p->o)) ++slot;
    seen_q[slot] = p->q;
    seen_o[slot] = p->o;
    if (seen_n[slot]++ < 2) return seed_attention_fwd(p, stream);
    return 0;
}
