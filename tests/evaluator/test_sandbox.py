"""The sandbox confines for real: each test runs a command in it and looks from outside."""
from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from evaluator.sandbox import Confinement, Sandbox, find_sandbox

KINDS = [k for k in ("bwrap", "unshare") if find_sandbox(k).confines]
pytestmark = pytest.mark.skipif(not KINDS, reason="neither bwrap nor unshare can confine here")


def run(kind: str, script: str, c: Confinement, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run(find_sandbox(kind).wrap(["sh", "-c", script], c), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("kind", KINDS)
def test_only_the_writable_paths_take_writes(kind: str, tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "project"
    ws.mkdir()
    outside.mkdir()
    (outside / "seed.c").write_text("int seed;\n")
    r = run(kind, f"echo hacked > {outside}/seed.c; echo x > {outside}/new; echo ok > {ws}/out; "
                  f"echo t > /tmp/left-behind-{kind}", Confinement(writable=(ws,), chdir=ws))
    assert (outside / "seed.c").read_text() == "int seed;\n"
    assert not (outside / "new").exists()
    assert (ws / "out").read_text() == "ok\n"
    assert not Path(f"/tmp/left-behind-{kind}").exists()  # a private /tmp
    # the project is refused (read-only), or not there at all (it lay under the host's /tmp)
    assert "Read-only file system" in r.stderr or "nonexistent" in r.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_the_runner_is_invisible(kind: str, tmp_path: Path) -> None:
    r = run(kind, "ls /proc | grep -c '^[0-9]'; readlink /proc/self/ns/pid; cat /proc/[0-9]*/cmdline | tr '\\0' ' '",
            Confinement(writable=(tmp_path,), chdir=tmp_path))
    count, ns, cmdlines = r.stdout.split("\n", 2)
    assert int(count) < 10
    assert ns != os.readlink("/proc/self/ns/pid")
    assert "python" not in cmdlines  # this process (where the runner would be) is not in its /proc


@pytest.mark.parametrize("kind", KINDS)
def test_credentials_are_hidden(kind: str, tmp_path: Path) -> None:
    secret_dir = tmp_path / "home" / ".ssh"
    secret_dir.mkdir(parents=True)
    (secret_dir / "id_ed25519").write_text("PRIVATE KEY")
    secret_file = tmp_path / "home" / ".netrc"
    secret_file.write_text("password hunter2")
    r = run(kind, f"cat {secret_dir}/id_ed25519 {secret_file}; ls -A {secret_dir}; echo done",
            Confinement(writable=(tmp_path / "home",), hidden=(secret_dir, secret_file), chdir=tmp_path))
    assert r.stdout == "done\n"  # the key and the password unreadable, the store listed empty
    assert "id_ed25519: No such file" in r.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_outlives_the_sandbox(kind: str, tmp_path: Path) -> None:
    marker = f"{time.time() % 1000:.6f}"
    run(kind, f"(sleep 77.{marker.replace('.', '')} &) ; setsid sleep 78.{marker.replace('.', '')} & echo started",
        Confinement(writable=(tmp_path,), chdir=tmp_path))
    deadline = time.monotonic() + 10  # the sleepers would live 77 s: a leak outlasts this wait
    while (left := subprocess.run(["pgrep", "-f", marker.replace(".", "")], capture_output=True,
                                  text=True).stdout.strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == ""


@pytest.mark.parametrize("kind", KINDS)
def test_no_network_by_default(kind: str, tmp_path: Path) -> None:
    if not find_sandbox(kind).network_unsharable:
        pytest.skip("this machine cannot unshare the network")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        r = subprocess.run(find_sandbox(kind).wrap(["bash", "-c", probe], Confinement(writable=(tmp_path,))),
                           capture_output=True, text=True, timeout=20)
        assert "connected" not in r.stdout
        r = subprocess.run(find_sandbox(kind).wrap(["bash", "-c", probe],
                                                   Confinement(writable=(tmp_path,), network=True)),
                           capture_output=True, text=True, timeout=20)
        assert "connected" in r.stdout
    finally:
        server.close()


def test_none_leaves_the_command_as_it_is() -> None:
    assert Sandbox("none", "").wrap(["true"], Confinement()) == ["true"]
    with pytest.raises(ValueError):
        find_sandbox("docker")


@pytest.mark.parametrize("kind", KINDS)
def test_readable_paths_are_seen_even_under_tmp_and_refuse_writes(kind: str, tmp_path: Path) -> None:
    ws, task = tmp_path / "ws", tmp_path / "task"
    ws.mkdir()
    task.mkdir()
    (task / "seed.c").write_text("int seed;\n")
    r = run(kind, f"cat {task}/seed.c; echo hacked > {task}/seed.c; echo ok > {ws}/out",
            Confinement(writable=(ws,), readable=(task,), chdir=ws))
    assert r.stdout == "int seed;\n" and "Read-only file system" in r.stderr
    assert (task / "seed.c").read_text() == "int seed;\n" and (ws / "out").read_text() == "ok\n"
