"""A real single-node Slurm cluster for tests: munged, slurmctld and slurmd from Debian's packages.

Everything lives in one private directory (its own munge key and socket, its own slurm.conf on
free ports, its own state and spool), so it never touches a Slurm or munge the machine already
runs, and two test runs never meet. `SLURM_CONF` points the client commands at it.

    cluster = SlurmCluster.start()     # SlurmUnavailable(reason) when it cannot start here
    cluster.env                        # {"SLURM_CONF": ...} for the client commands
    cluster.stop()                     # stops every daemon it started

The daemons run in the foreground as children of this process, with a parent-death signal, so a
test run that is killed takes them down; a later start also stops what a killed run left behind
(their pids are in `<dir>/pids`, checked against their command lines before any signal).

Run by hand: `python tests/fleet/slurm_cluster.py` starts one and prints how to use it.
"""
from __future__ import annotations

import ctypes
import glob
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PREFIX = "kernelseek-slurm-"
GPUS = 4
CPUS = 16  # more than the machine has (config_overrides): eight sessions run at once on 2 cores
DAEMONS = ("munged", "slurmctld", "slurmd")


class SlurmUnavailable(Exception):
    """Why a Slurm cluster cannot be started here (tests skip with this reason)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _belongs_to(pid: int, root: str) -> bool:
    """A job's process (its environment names the cluster's slurm.conf) or a step daemon
    (working in the cluster's spool)."""
    try:
        if f"SLURM_CONF={root}/slurm.conf".encode() in Path(f"/proc/{pid}/environ").read_bytes():
            return True
        return os.readlink(f"/proc/{pid}/cwd").startswith(root)
    except OSError:
        return False


def _kill_jobs_of(root: str) -> None:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid() and _belongs_to(int(entry.name), root):
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def reap_leftovers() -> None:
    """Stop the daemons (and jobs) of clusters whose test run died (their owner pid is gone)."""
    for d in glob.glob(os.path.join(tempfile.gettempdir(), PREFIX + "*")):
        owner = Path(d, "owner")
        try:
            pid = int(owner.read_text())
        except (OSError, ValueError):
            continue
        if pid > 0 and Path(f"/proc/{pid}").exists():
            continue
        for pidfile in Path(d, "pids").glob("*.pid"):
            try:
                dpid = int(pidfile.read_text())
            except (OSError, ValueError):
                continue
            if d in _cmdline(dpid):  # ours: its command line names this cluster's directory
                try:
                    os.kill(dpid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        _kill_jobs_of(d)
        shutil.rmtree(d, ignore_errors=True)


class SlurmCluster:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.conf = root / "slurm.conf"
        self.node = socket.gethostname().split(".")[0]
        self.procs: dict[str, subprocess.Popen] = {}
        self.gpus = 0

    @property
    def env(self) -> dict[str, str]:
        return {"SLURM_CONF": str(self.conf)}

    @classmethod
    def start(cls) -> "SlurmCluster":
        missing = [b for b in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel")
                   if shutil.which(b, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") is None]
        if missing:
            raise SlurmUnavailable(f"Slurm is not installed ({', '.join(missing)} missing): "
                                   "apt-get install -y slurm-wlm munge")
        if os.geteuid() != 0:
            raise SlurmUnavailable("starting slurmd needs root (it runs jobs as their users)")
        reap_leftovers()
        root = Path(tempfile.mkdtemp(prefix=PREFIX))
        os.chmod(root, 0o755)
        cluster = cls(root)
        try:
            cluster._configure()
            cluster._run()
        except BaseException:
            cluster.stop()
            raise
        return cluster

    # -- configuration ----------------------------------------------------------------------------

    def _configure(self) -> None:
        r = self.root
        (r / "owner").write_text(str(os.getpid()))
        for name, mode in (("munge", 0o700), ("run", 0o755), ("state", 0o700), ("spool", 0o755),
                           ("log", 0o755), ("pids", 0o755), ("dev", 0o755)):
            (r / name).mkdir(mode=mode)
            os.chmod(r / name, mode)
        key = r / "munge" / "munge.key"
        key.write_bytes(secrets.token_bytes(1024))
        os.chmod(key, 0o400)
        # GPUs without devices: Slurm drops a file-less gpu from its list, so each GPU is a
        # character device like /dev/null (or, where mknod is not allowed, a plain file)
        files = []
        for i in range(GPUS):
            dev = r / "dev" / f"gpu{i}"
            try:
                os.mknod(dev, 0o666 | 0o020000, os.makedev(1, 3))
            except OSError:
                dev.touch()
            files.append(dev)
        self.gpus = GPUS
        (r / "gres.conf").write_text(f"AutoDetect=off\nNodeName={self.node} Name=gpu File={r}/dev/gpu[0-{GPUS - 1}]\n")
        self.conf.write_text("\n".join([
            "ClusterName=kernelseek-test",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            "SlurmUser=root",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={r}/run/munge.sock",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "SlurmdParameters=config_overrides",
            "MpiDefault=none",
            "ReturnToService=2",
            "SchedulerParameters=sched_interval=1,bf_interval=1",
            "MinJobAge=600",
            "KillWait=5",
            f"StateSaveLocation={r}/state",
            f"SlurmdSpoolDir={r}/spool/%n",
            f"SlurmctldPidFile={r}/pids/slurmctld-internal.pid",
            f"SlurmdPidFile={r}/pids/slurmd-internal.pid",
            f"SlurmctldLogFile={r}/log/slurmctld.log",
            f"SlurmdLogFile={r}/log/slurmd.log",
            "GresTypes=gpu",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={CPUS} RealMemory=8000 Gres=gpu:{GPUS} State=UNKNOWN",
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            "",
        ]))

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.root / "log" / f"{name}.out", "ab")
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    env={**os.environ, **self.env}, preexec_fn=_die_with_parent)
        finally:
            log.close()
        self.procs[name] = proc
        (self.root / "pids" / f"{name}.pid").write_text(str(proc.pid))

    def _run(self) -> None:
        r = self.root
        self._spawn("munged", ["munged", "-F", f"--socket={r}/run/munge.sock", f"--key-file={r}/munge/munge.key",
                               f"--log-file={r}/log/munged.log", f"--pid-file={r}/pids/munged-internal.pid",
                               f"--seed-file={r}/munge/munged.seed"])
        self._wait(lambda: (r / "run" / "munge.sock").exists(), "munged did not create its socket", 10)
        self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)])
        self._wait(self._controller_up, "slurmctld did not answer", 20)
        self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.conf), "-N", self.node])
        self._wait(self._node_idle, "the node did not come up", 20)

    def _wait(self, ready, what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise SlurmUnavailable(f"{name} exited ({proc.returncode}): {self.log_tail(name)}")
            if ready():
                return
            time.sleep(0.1)
        raise SlurmUnavailable(f"{what} within {timeout:g} s: {self.log_tail('slurmctld')}")

    def log_tail(self, name: str) -> str:
        texts = []
        for p in (self.root / "log" / f"{name}.out", self.root / "log" / f"{name}.log"):
            try:
                texts.append(p.read_text(errors="replace").strip().splitlines()[-1])
            except (OSError, IndexError):
                pass
        return " | ".join(texts) or "(no log)"

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(list(argv), capture_output=True, text=True, check=check, timeout=30,
                              env={**os.environ, **self.env})

    def _controller_up(self) -> bool:
        return self.run("scontrol", "ping", check=False).stdout.count("UP") > 0

    def _node_idle(self) -> bool:
        out = self.run("sinfo", "-h", "-N", "-o", "%T %G", check=False).stdout.strip()
        state = out.split()[0] if out else ""
        if "drain" in state or "inval" in state:  # e.g. a GPU count the node could not confirm
            self.run("scontrol", "update", f"nodename={self.node}", "state=resume", check=False)
        return state.startswith("idle")

    def cancel_all(self, timeout: float = 15.0) -> None:
        """Cancel every job of this cluster and wait until none is left."""
        if self.procs.get("slurmctld") is None or self.procs["slurmctld"].poll() is not None:
            return
        ids = self.run("squeue", "-h", "-o", "%A", check=False).stdout.split()
        if ids:
            self.run("scancel", *sorted(set(ids)), check=False)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.run("squeue", "-h", "-o", "%A", check=False).stdout.split():
                return
            time.sleep(0.2)

    def stop(self) -> None:
        try:
            self.cancel_all()
        except (OSError, subprocess.SubprocessError):
            pass
        for name in reversed(DAEMONS):
            proc = self.procs.get(name)
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        _kill_jobs_of(str(self.root))  # anything a cancel could not reach
        shutil.rmtree(self.root, ignore_errors=True)


if __name__ == "__main__":
    c = SlurmCluster.start()
    print(f"a single-node Slurm is up: export SLURM_CONF={c.conf}\n(ctrl+c stops it)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        c.stop()
    sys.exit(0)
