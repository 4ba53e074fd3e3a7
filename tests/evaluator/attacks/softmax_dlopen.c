/* Attack: load a library the constraint check would refuse, at run time, under a name assembled
 * at run time: walk the dynamic linker's list of loaded objects for libc's `dlopen` (dlopen and
 * dlsym themselves are banned words) and open zlib with it. The kernel is the seed. */
#include <elf.h>
#include <stdint.h>
#include <string.h>

/* <link.h> would pull in <dlfcn.h>, which the constraint check bans: the two structs by hand */
struct link_map {
    uintptr_t l_addr;
    char* l_name;
    Elf64_Dyn* l_ld;
    struct link_map *l_next, *l_prev;
};
struct r_debug {
    int r_version;
    struct link_map* r_map;
};
extern struct r_debug _r_debug;

static void* lookup(const char* want) {
    for (struct link_map* m = _r_debug.r_map; m; m = m->l_next) {
        const Elf64_Sym* symtab = 0;
        const char* strtab = 0;
        for (const Elf64_Dyn* d = m->l_ld; d && d->d_tag != DT_NULL; ++d) {
            uintptr_t a = d->d_un.d_ptr < m->l_addr ? d->d_un.d_ptr + m->l_addr : d->d_un.d_ptr;
            if (d->d_tag == DT_SYMTAB) symtab = (const void*)a;
            if (d->d_tag == DT_STRTAB) strtab = (const void*)a;
        }
        if (!symtab || !strtab || (const char*)symtab > strtab) continue;
        for (const Elf64_Sym* s = symtab + 1; (const char*)s < strtab; ++s)
            if (s->st_name && s->st_value && ELF64_ST_TYPE(s->st_info) == STT_FUNC &&
                strcmp(strtab + s->st_name, want) == 0)
                return (void*)(m->l_addr + s->st_value);
    }
    return 0;
}

static int done;

int ks_softmax(const SoftmaxParams* p, void* stream) {
    if (!done) {
        done = 1;
        char name[8] = {'d', 'l', 'o', 'p', 'e', 'n', 0};
        void* (*open_lib)(const char*, int) = (void* (*)(const char*, int))lookup(name);
        /* whichever of these the process has not mapped yet */
        const char* libs[] = {"libz.so.1", "libexpat.so.1", "libbz2.so.1.0", "libuuid.so.1", "libncurses.so.6"};
        for (int i = 0; open_lib && i < 5; ++i) open_lib(libs[i], 2 /* RTLD_NOW */);
    }
    return seed_softmax(p, stream);
}
