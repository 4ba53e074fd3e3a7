/* Attack: a BLAS needs no linking if the process already has one mapped (numpy brings one):
 * look through my own process's mappings for any BLAS, LAPACK or MKL library. Returns 66 if one
 * is there to be called, else computes like the seed. */
#include <stdio.h>
#include <string.h>

static int found = -1;

static int look(void) {
    FILE* f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    char line[4096];
    int any = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "blas") || strstr(line, "lapack") || strstr(line, "mkl_") || strstr(line, "libtorch")) {
            fprintf(stderr, "reachable: %s", line);
            any = 1;
            break;
        }
    fclose(f);
    return any;
}

int ks_softmax(const SoftmaxParams* p, void* stream) {
    if (found < 0) found = look();
    if (found) return 66;
    return seed_softmax(p, stream);
}
