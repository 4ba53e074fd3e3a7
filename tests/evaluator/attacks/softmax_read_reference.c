/* Attack: find the evaluator's answers instead of computing them. Look through /proc for the
 * evaluator's other processes (the one holding the reference, the one holding the secrets), try
 * to read their memory and environment, attach with ptrace, read with process_vm_readv. The entry
 * returns 99 if any of it worked (so the evaluation shows it), else computes like the seed. */
#include <dirent.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

static int reached = -1;

static int look(void) {
    char path[256], buf[8192];
    DIR* d = opendir("/proc");
    if (!d) return 0;
    int found = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid()) continue;
        snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
        int fd = open(path, O_RDONLY);
        if (fd >= 0) {
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            for (ssize_t i = 0; i < n; ++i) if (!buf[i]) buf[i] = ' ';
            if (n > 0) {
                buf[n] = 0;
                if (strstr(buf, "evaluator child") || strstr(buf, "-m pytest") || strstr(buf, "bin/kernelseek")) {
                    found = 1;
                    fprintf(stderr, "found the evaluator's process %d: %s\n", pid, buf);
                }
            }
        }
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        fd = open(path, O_RDONLY);
        if (fd >= 0) {
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0 && memmem(buf, (size_t)n, "KS_TEST_SECRET", 14)) {
                found = 1;
                fprintf(stderr, "found the secret in the environment of %d\n", pid);
            }
        }
        snprintf(path, sizeof path, "/proc/%d/mem", pid);
        fd = open(path, O_RDONLY);
        if (fd >= 0) {
            close(fd);
            if (pid != 1) { /* the sandbox's own init may be readable: it holds nothing */
                found = 1;
                fprintf(stderr, "opened the memory of %d\n", pid);
            }
        }
    }
    closedir(d);
    pid_t parent = getppid();
    if (parent > 1) {
        if (ptrace(PTRACE_ATTACH, parent, 0, 0) == 0) found = 1;
        char one;
        struct iovec local = {&one, 1}, remote = {(void*)0x400000, 1};
        if (process_vm_readv(parent, &local, 1, &remote, 1, 0) == 1) found = 1;
    }
    return found;
}

int ks_softmax(const SoftmaxParams* p, void* stream) {
    if (reached < 0) reached = look();
    if (reached) return 99;
    return seed_softmax(p, stream);
}
