/* Attack: the first two calls on a pair of buffers are the checked ones; the timed calls after them
 * launch nothing at all. */
static const void* seen_x[64];
static void* seen_y[64];
static int seen_n[64];

extern "C" int ks_rmsnorm(const RmsnormParams* p, void* stream) {
    int slot = 0;
    while (slot < 63 && seen_n[slot] && (seen_x[slot] != p->x || seen_y[slot] != p->y)) ++slot;
    seen_x[slot] = p->x;
    seen_y[slot] = p->y;
    if (seen_n[slot]++ < 2) return seed_rmsnorm(p, stream);
    return 0;
}
