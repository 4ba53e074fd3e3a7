"""Claude Code's launcher inside the sandbox: the API reachable on loopback, nothing else.

The sandbox has no network. This process (the first one in it) brings the loopback interface up
when the namespace left it down (util-linux unshare does; bubblewrap does not), listens on a
loopback port, forwards each connection to the runner's API proxy through its unix socket (the
one path out), sets ANTHROPIC_BASE_URL to that port and runs Claude Code with the standard
streams it was given. It exits with Claude Code's status; the sandbox ends with it.

    python -m agent.claude_code.inside --api-socket PATH -- claude ARGS...

Standard library only: it starts for every Claude Code run.
"""
from __future__ import annotations

import argparse
import fcntl
import os
import signal
import socket
import struct
import subprocess
import sys
import threading

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    """`ip link set lo up`, by ioctl (as the namespace's root; a no-op where it is up)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(s, SIOCGIFFLAGS, req))[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(1 << 16)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(listener: socket.socket, unix_path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(unix_path)
        except OSError:
            client.close()
            upstream.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agent.claude_code.inside")
    ap.add_argument("--api-socket", required=True)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command to run")
    try:
        loopback_up()
    except OSError:
        pass  # the network is the host's (the sandbox could not unshare it): loopback is up
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=serve, args=(listener, args.api_socket), daemon=True).start()
    env = dict(os.environ)
    env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{listener.getsockname()[1]}"
    proc = subprocess.Popen(command, env=env)

    def forward(signum, _frame):
        try:
            proc.send_signal(signum)
        except OSError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
