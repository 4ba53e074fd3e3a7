"""The runner's side of Claude Code's hooks and of `ks-evaluate`: a unix socket, one request each.

A hook command (`python -m agent.claude_code.hook`) or `ks-evaluate` connects, writes one JSON
line and reads one back: {"stdout": TEXT, "exit": N}, which it prints and exits with. Requests:

- {"verb": "hook", "input": <the hook's stdin JSON>}: PostToolUse (deliver the inbox at this tool
  boundary), Stop (the stop gate), and the hook events attach mode installs;
- {"verb": "evaluate", "args": {"file", "quick", "only"}}: an evaluation of the workspace's
  candidate, logged in the session like the native agent's evaluate tool.

The socket lives in a private directory (0700); inside the sandbox it is visible read-only, so a
tool can call it (as the agent may) but cannot replace it.
"""
from __future__ import annotations

import json
import os
import shlex
import socketserver
import sys
from collections.abc import Callable
from pathlib import Path

from agent.claude_code import REPO
from agent.claude_code.sockets import UnixSocketServer

MAX_REQUEST = 8 << 20


class Bridge:
    """Answers requests with `handle(request) -> {"stdout": str, "exit": int}` on its own threads."""

    def __init__(self, socket_path: str | os.PathLike, handle: Callable[[dict], dict]) -> None:
        self.socket_path = str(socket_path)
        self.handle = handle
        self._server: UnixSocketServer | None = None

    def start(self) -> "Bridge":
        bridge = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline(MAX_REQUEST)
                try:
                    request = json.loads(line)
                    if not isinstance(request, dict):
                        raise ValueError("not an object")
                    answer = bridge.handle(request)
                except ValueError as exc:
                    answer = {"stdout": f"kernelseek: bad request ({exc})", "exit": 2}
                except Exception as exc:  # noqa: BLE001 - the caller gets a line, the runner goes on
                    answer = {"stdout": f"kernelseek: {type(exc).__name__}: {exc}", "exit": 1}
                try:
                    self.wfile.write(json.dumps(answer).encode() + b"\n")
                except OSError:
                    pass  # the hook was killed (an interrupt): nobody to answer

        self._server = UnixSocketServer(self.socket_path, Handler, "claude-code-bridge")
        self._server.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None


def hook_command(bridge_sock: Path) -> str:
    """The shell command Claude Code runs for a hook (any Python with the standard library)."""
    return (f"PYTHONPATH={shlex.quote(str(REPO))} {shlex.quote(sys.executable)} -m agent.claude_code.hook "
            f"--socket {shlex.quote(str(bridge_sock))} hook")


def evaluate_command(bridge_sock: Path) -> str:
    """The shell command that evaluates through the runner (what `ks-evaluate` runs)."""
    return (f"PYTHONPATH={shlex.quote(str(REPO))} exec {shlex.quote(sys.executable)} -m agent.claude_code.hook "
            f"--socket {shlex.quote(str(bridge_sock))} evaluate")
