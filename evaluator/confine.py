"""What the candidate host does to itself before it loads candidate code: limits and a syscall filter.

The sandbox (evaluator.sandbox) gives the host its own PID and mount namespaces and a read-only
file system. Inside, before the first candidate library is opened, the host:

- sets resource limits: CPU seconds, the size of any file it writes, no core dumps, and the
  data segment (RLIMIT_DATA: private writable memory; not the address space, which CUDA reserves
  by the terabyte);
- keeps no new privileges (PR_SET_NO_NEW_PRIVS) and installs a seccomp filter, written here as
  classic BPF through ctypes (no libseccomp), that refuses to create processes or run programs:
  fork, vfork, clone without CLONE_THREAD, execve, execveat (EPERM) and clone3 (ENOSYS, so glibc
  falls back to clone for threads, which stay allowed: OpenMP needs them). It also refuses
  ptrace and cross-process memory access, mounting and namespace changes (under `unshare` the
  host is root in its own user namespace and could otherwise remount its binds writable),
  io_uring, BPF, perf events, kernel keyrings, module loading and a new session or process group
  (which would leave the evaluator's process group); a cpu host also refuses new sockets (a
  unix socket is a file on the read-only file system, and some of them lead to services).

x86_64 and aarch64 are supported; elsewhere the filter is not installed and `confine` says so.
"""
from __future__ import annotations

import ctypes
import errno
import platform
import resource
import struct
from dataclasses import dataclass

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
CLONE_THREAD = 0x00010000

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# syscall numbers per architecture (x86_64 from arch/x86/entry/syscalls, aarch64 the generic table)
SYSCALLS = {
    "x86_64": {
        "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "clone3": 435,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "mount": 165, "umount2": 166,
        "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "mount_setattr": 442, "setsid": 112, "setpgid": 109, "kexec_load": 246, "kexec_file_load": 320,
        "bpf": 321, "perf_event_open": 298, "keyctl": 250, "add_key": 248, "request_key": 249,
        "init_module": 175, "finit_module": 313, "delete_module": 176, "iopl": 172, "ioperm": 173,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "userfaultfd": 323,
        "reboot": 169, "swapon": 167, "swapoff": 168, "pidfd_getfd": 438,
    },
    "aarch64": {
        "clone": 220, "execve": 221, "execveat": 281, "clone3": 435, "ptrace": 117,
        "process_vm_readv": 270, "process_vm_writev": 271, "mount": 40, "umount2": 39, "pivot_root": 41,
        "chroot": 51, "unshare": 97, "setns": 268, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "setsid": 157,
        "setpgid": 154, "kexec_load": 104, "kexec_file_load": 294, "bpf": 280, "perf_event_open": 241,
        "keyctl": 219, "add_key": 217, "request_key": 218, "init_module": 105, "finit_module": 273,
        "delete_module": 106, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "userfaultfd": 282, "reboot": 142, "swapon": 224, "swapoff": 225, "pidfd_getfd": 438,
    },
}
# refused only where nothing of the host needs them (cpu): CUDA's clients may talk to local daemons
SOCKET_CALLS = {"x86_64": {"socket": 41, "socketpair": 53}, "aarch64": {"socket": 198, "socketpair": 199}}
# x86_64: syscalls of the x32 ABI carry this bit; none is allowed
X32_BIT = 0x40000000


@dataclass(frozen=True)
class Limits:
    cpu_s: int  # CPU seconds of the whole host (all threads)
    file_bytes: int  # largest file it may write
    data_bytes: int | None  # RLIMIT_DATA; None = leave as it is


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


# classic BPF opcodes
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06


def filter_program(arch: str, sockets: bool = True) -> bytes:
    """The BPF program (seccomp_data: nr at 0, arch at 4, args[0] low word at 16)."""
    nrs = SYSCALLS[arch]
    deny = sorted(v for k, v in nrs.items() if k not in ("clone", "clone3"))
    if not sockets:
        deny = sorted(deny + list(SOCKET_CALLS[arch].values()))
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    enosys = SECCOMP_RET_ERRNO | errno.ENOSYS
    prog: list[bytes] = []
    # a foreign architecture (32-bit calls on a 64-bit kernel): refuse everything
    prog += [_insn(LD_W_ABS, 0, 0, 4), _insn(JEQ_K, 1, 0, AUDIT_ARCH[arch]), _insn(RET_K, 0, 0, eperm)]
    prog.append(_insn(LD_W_ABS, 0, 0, 0))
    if arch == "x86_64":
        prog += [_insn(JGE_K, 0, 1, X32_BIT), _insn(RET_K, 0, 0, eperm)]
    # clone: allowed only with CLONE_THREAD; clone3: ENOSYS (glibc then uses clone)
    prog += [_insn(JEQ_K, 0, 4, nrs["clone"]), _insn(LD_W_ABS, 0, 0, 16),
             _insn(JSET_K, 1, 0, CLONE_THREAD), _insn(RET_K, 0, 0, eperm), _insn(RET_K, 0, 0, SECCOMP_RET_ALLOW)]
    prog += [_insn(JEQ_K, 0, 1, nrs["clone3"]), _insn(RET_K, 0, 0, enosys)]
    for nr in deny:
        prog += [_insn(JEQ_K, 0, 1, nr), _insn(RET_K, 0, 0, eperm)]
    prog.append(_insn(RET_K, 0, 0, SECCOMP_RET_ALLOW))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_filter(sockets: bool = True) -> str | None:
    """Install the process-creation filter on this process and all its threads (without `sockets`
    also refusing new sockets). None when installed, else why not."""
    arch = platform.machine()
    if arch not in SYSCALLS:
        return f"no seccomp filter for {arch}"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return f"PR_SET_NO_NEW_PRIVS failed: {errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())}"
    prog = filter_program(arch, sockets)
    buf = ctypes.create_string_buffer(prog, len(prog))
    fprog = _SockFprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    # SECCOMP_FILTER_FLAG_TSYNC through seccomp(2) would cover threads that already exist; prctl
    # covers the calling thread and every thread or process it creates afterwards
    rc = _seccomp_tsync(libc, fprog)
    if rc is not None:
        if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
            return f"seccomp filter refused: {errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())}"
    return None


def _seccomp_tsync(libc: ctypes.CDLL, fprog: _SockFprog) -> str | None:
    """seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC): every existing thread too."""
    nr = {"x86_64": 317, "aarch64": 277}.get(platform.machine())
    if nr is None:
        return "no seccomp(2) number"
    libc.syscall.restype = ctypes.c_long
    rc = libc.syscall(ctypes.c_long(nr), ctypes.c_ulong(1), ctypes.c_ulong(1), ctypes.c_void_p(ctypes.addressof(fprog)))
    return None if rc == 0 else f"errno {ctypes.get_errno()}"


def data_in_use() -> int:
    """This process's data segment (VmData) in bytes."""
    from evaluator.machine import proc_bytes

    return proc_bytes("/proc/self/status", "VmData", 0)


def set_limits(limits: Limits) -> list[str]:
    """Apply the limits (never raising a hard limit); what could not be set, one line each."""
    import signal

    problems = []
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails (EFBIG) instead of killing
    for name, res, value in (("cpu", resource.RLIMIT_CPU, limits.cpu_s),
                             ("file size", resource.RLIMIT_FSIZE, limits.file_bytes),
                             ("core", resource.RLIMIT_CORE, 0),
                             ("data", resource.RLIMIT_DATA, limits.data_bytes)):
        if value is None:
            continue
        soft, hard = resource.getrlimit(res)
        want = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(res, (want, want))
        except (ValueError, OSError) as exc:
            problems.append(f"{name} limit: {exc}")
    return problems


def confine(limits: Limits, sockets: bool = True) -> dict[str, object]:
    """Limits, then the filter; a small record of what took (the report's `host.confined`)."""
    problems = set_limits(limits)
    why_not = install_filter(sockets)
    return {"seccomp": why_not is None, "rlimits": not problems,
            "note": "; ".join(problems + ([why_not] if why_not else [])) or "process creation refused, limits set"}
