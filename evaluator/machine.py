"""Facts about this machine that both sides need, with nothing but the standard library:
the CPU and its last-level cache, memory, how busy the cores are, the CPU time of processes.
(The CPU candidate host imports only the standard library and ctypes: numpy would map a BLAS into
the process a candidate shares.)"""
from __future__ import annotations

import os
import platform
import resource
from pathlib import Path


def last_level_cache_bytes() -> int:
    """Size of the largest data/unified cache of cpu0 (32 MiB when sysfs does not say)."""
    best_level, best = 0, 0
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            if (index / "type").read_text().strip() == "Instruction":
                continue
            level = int((index / "level").read_text())
            text = (index / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        size = int(text.rstrip("KMG")) * scale
        if level > best_level or (level == best_level and size > best):
            best_level, best = level, size
    return best or (32 << 20)


def flush_bytes(llc: int) -> int:
    """What each cold-cache flush writes: twice the last-level cache. KERNELSEEK_FLUSH_BYTES caps
    it (for test rigs whose tests only pass through the evaluator: a 260 MiB L3 makes each flush
    ~25 ms there; not for measuring)."""
    cap = os.environ.get("KERNELSEEK_FLUSH_BYTES", "")
    return min(2 * llc, int(cap)) if cap.isdigit() and int(cap) > 0 else 2 * llc


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_busy_s() -> float | None:
    """Seconds all cores spent busy (user, system, irq, steal, ...) since boot, from /proc/stat."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(v) for v in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    ticks = sum(fields[:8]) - idle  # guest time is already inside user
    return ticks / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def proc_bytes(path: str, key: str, default: int) -> int:
    """A `Key:  N kB` line of a /proc file (meminfo, self/status) in bytes; `default` without one."""
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return default


def mem_available() -> int:
    """Bytes of memory available (MemAvailable), 1 GiB when /proc/meminfo does not say."""
    return proc_bytes("/proc/meminfo", "MemAvailable", 1 << 30)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def mem_total() -> int:
    return proc_bytes("/proc/meminfo", "MemTotal", 8 << 30)


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (by parent links in /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                parent[int(entry)] = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    out, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        frontier += kids
    return out


def process_cpu_s(pids: list[int]) -> float:
    """utime + stime of these processes (all their threads), seconds."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / tick
