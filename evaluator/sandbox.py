"""Confining untrusted processes: the agent's shell commands and the candidate host.

A confined process gets its own PID namespace (it sees neither the runner nor the verdict
process in /proc, and everything it starts dies with it), its own mount namespace in which the
whole file system is read-only except the paths it may write, a private /tmp and /dev/shm (no
state survives from one evaluation or command to the next), credential stores hidden, and by
default no network. Devices stay reachable: GPU tasks need /dev/nvidia*.

Two ways to get there, tried in order (neither needs root on a stock Linux):

- bubblewrap (`bwrap`), where it is installed;
- util-linux `unshare --user --map-root-user --mount --pid --fork --mount-proc`, with a short
  shell prologue that remounts every mount read-only, binds the writable paths back and mounts
  the private tmpfs's before it `exec`s the command (the machine with the H200 has this one).

`find_sandbox()` probes once per process, by really starting a confined `sh` and checking from
inside that /usr refuses writes and a writable path takes them; a sandbox that starts but does
not confine is not used. Where neither works, `Sandbox.kind` is "none" and `wrap` returns the
command unchanged: callers decide whether that is acceptable (a live run refuses it without an
explicit unsafe flag).
"""
from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

PROBE_TIMEOUT_S = 15.0
# credential stores under $HOME that a confined process must not read
CREDENTIAL_PATHS = (".config/anthropic", ".anthropic", ".claude.json", ".ssh", ".aws", ".config/gcloud",
                    ".azure", ".docker", ".kube", ".netrc", ".git-credentials", ".pgpass", ".config/gh",
                    ".gnupg", ".munge")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install "
                "bubblewrap`) or make sure util-linux `unshare` can create user namespaces "
                "(sysctl kernel.unprivileged_userns_clone=1)")


@dataclass(frozen=True)
class Confinement:
    """What one confined process may do beyond reading the file system."""

    writable: tuple[Path, ...] = ()  # bound read-write (must exist)
    readable: tuple[Path, ...] = ()  # bound read-only (must exist): seen even under the private /tmp
    hidden: tuple[Path, ...] = ()  # replaced by an empty directory (or /dev/null for a file)
    network: bool = False
    chdir: Path | None = None


def credential_paths(home: Path | None = None) -> list[Path]:
    """Credential stores under the home directory that exist (a confined process sees them empty)."""
    home = home or Path.home()
    out = []
    for rel in CREDENTIAL_PATHS:
        p = home / rel
        if p.exists() and not p.is_symlink():
            out.append(p)
    return out


@dataclass
class Sandbox:
    """A way to confine commands: `kind` is bwrap, unshare or none; `note` says what it does."""

    kind: str
    note: str
    network_unsharable: bool = True
    problems: list[str] = field(default_factory=list)  # why the other kinds were not used

    @property
    def confines(self) -> bool:
        return self.kind != "none"

    def wrap(self, argv: list[str], confinement: Confinement = Confinement()) -> list[str]:
        """`argv` run inside the sandbox (unchanged when there is none)."""
        if self.kind == "bwrap":
            return _bwrap_argv(argv, confinement, self.network_unsharable)
        if self.kind == "unshare":
            return _unshare_argv(argv, confinement, self.network_unsharable)
        return list(argv)


def _resolved(paths: tuple[Path, ...]) -> list[str]:
    return [str(Path(p).resolve()) for p in paths]


def _bwrap_argv(argv: list[str], c: Confinement, can_unshare_net: bool) -> list[str]:
    args = ["bwrap", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    for path in _resolved(c.readable):
        args += ["--ro-bind", path, path]
    for path in _resolved(c.writable):
        args += ["--bind", path, path]
    for hidden in c.hidden:  # after the binds: a store inside a writable path stays hidden
        hidden = Path(hidden)
        if hidden.is_dir():
            args += ["--tmpfs", str(hidden)]
        elif hidden.exists():
            args += ["--ro-bind", "/dev/null", str(hidden)]
    args += ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"]
    if not c.network and can_unshare_net:
        args.append("--unshare-net")
    if c.chdir is not None:
        args += ["--chdir", str(Path(c.chdir).resolve())]
    return args + ["--"] + list(argv)


def _unshare_argv(argv: list[str], c: Confinement, can_unshare_net: bool) -> list[str]:
    args = ["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "--mount-proc",
            "--kill-child"]
    if not c.network and can_unshare_net:
        args.append("--net")
    return args + ["sh", "-c", _prologue(c), "ks-sandbox"] + list(argv)


def _prologue(c: Confinement) -> str:
    """What the namespace's pid 1 (mapped root in new user + mount namespaces) runs before the
    command: every mount read-only, private /tmp and /dev/shm, hidden paths, writable binds."""
    lines = ["set -e", "mount --make-rprivate /",
             "for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do",
             "  case \"$m\" in /proc|/proc/*|/dev|/dev/pts|/dev/pts/*) continue;; esac",
             "  mount -o remount,bind,ro \"$m\" 2>/dev/null || true",
             "done"]
    binds = [(p, "ro") for p in _resolved(c.readable)] + [(p, "rw") for p in _resolved(c.writable)]
    # hold each bound directory open: a path under /tmp is hidden by the private tmpfs below,
    # and is bound back from its descriptor
    for fd, (path, _) in enumerate(binds, start=3):
        lines.append(f"exec {fd}<{shlex.quote(path)}")
    lines += ["mount -t tmpfs -o mode=1777 ks-tmp /tmp",
              "mount -t tmpfs -o mode=1777 ks-shm /dev/shm 2>/dev/null || true"]
    for fd, (path, mode) in enumerate(binds, start=3):
        q = shlex.quote(path)
        lines += [f"mkdir -p {q} 2>/dev/null || true", f"mount --no-canonicalize --bind /proc/self/fd/{fd} {q}",
                  f"mount -o remount,bind,{mode} {q}", f"exec {fd}<&-"]
    for hidden in c.hidden:  # after the binds: a store inside a writable path stays hidden
        hidden = Path(hidden)
        q = shlex.quote(str(hidden))
        if hidden.is_dir():
            lines.append(f"if [ -e {q} ]; then mount -t tmpfs -o ro,mode=0 ks-hidden {q}; fi")
        elif hidden.exists():
            lines.append(f"if [ -e {q} ]; then mount --bind /dev/null {q}; fi")
    lines.append("if test -w /usr; then echo 'kernelseek sandbox: /usr is still writable' >&2; exit 97; fi")
    lines.append(f"cd {shlex.quote(str(Path(c.chdir).resolve()) if c.chdir is not None else '/')}")
    lines.append('exec "$@"')
    return "\n".join(lines) + "\n"


def _probe(kind: str) -> tuple[Sandbox | None, str]:
    """Start a confined sh of this kind; a Sandbox when it confines, else the reason it does not."""
    tool = "bwrap" if kind == "bwrap" else "unshare"
    if shutil.which(tool) is None:
        return None, f"{tool} not found"
    with tempfile.TemporaryDirectory(prefix="ks-sandbox-probe-") as tmp:
        ws = Path(tmp)
        check = ("touch /usr/.ks-probe 2>/dev/null && exit 3; "
                 f"touch {shlex.quote(str(ws))}/ok || exit 4; "
                 f"[ \"$(readlink /proc/self/ns/pid)\" != {shlex.quote(os.readlink('/proc/self/ns/pid'))} ] || exit 5; "
                 "echo confined")
        for net in (False, True):
            sb = Sandbox(kind, "", network_unsharable=not net)
            argv = sb.wrap(["sh", "-c", check], Confinement(writable=(ws,), chdir=ws))
            try:
                r = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                                   stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return None, f"{tool} could not start: {exc}"
            if r.returncode == 0 and "confined" in r.stdout and (ws / "ok").exists():
                sb.note = (f"{kind}: own PID and mount namespaces, the file system read-only except "
                           f"the workspace, private /tmp, credentials hidden, "
                           + ("no network" if sb.network_unsharable else "network shared (could not unshare it)"))
                return sb, ""
            reason = {3: "/usr stayed writable", 4: "the writable path refused writes",
                      5: "it shared the PID namespace"}.get(r.returncode, (r.stderr or r.stdout).strip()[-200:]
                                                          or f"exit {r.returncode}")
        return None, f"{tool} does not confine here: {reason}"


_CACHE: dict[str, Sandbox] = {}
_LOCK = threading.Lock()


def find_sandbox(prefer: str = "auto") -> Sandbox:
    """The best working sandbox (probed once per process): prefer is auto | bwrap | unshare | none."""
    if prefer not in ("auto", "bwrap", "unshare", "none"):
        raise ValueError(f"sandbox: expected auto, bwrap, unshare or none, got {prefer!r}")
    with _LOCK:
        if prefer in _CACHE:
            return _CACHE[prefer]
        if prefer == "none":
            sb = Sandbox("none", "sandbox off (configured): commands run unconfined")
        else:
            problems = []
            sb = None
            for kind in (("bwrap", "unshare") if prefer == "auto" else (prefer,)):
                found, why = _probe(kind)
                if found is not None:
                    found.problems = problems
                    sb = found
                    break
                problems.append(why)
            if sb is None:
                sb = Sandbox("none", "unsandboxed: " + "; ".join(problems), problems=problems)
        _CACHE[prefer] = sb
        return sb


def die_with_parent() -> None:
    """For Popen(preexec_fn=...): the child gets SIGKILL when the process that started it dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def not_dumpable() -> bool:
    """Make this process's /proc/<pid>/{environ,mem,...} unreadable to other processes of the
    same user (PR_SET_DUMPABLE 0). Returns whether it took."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        return False

