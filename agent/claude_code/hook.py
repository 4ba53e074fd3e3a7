"""The command Claude Code runs as its hooks, and `ks-evaluate`: asks the runner, prints its answer.

    python -m agent.claude_code.hook --socket PATH hook         (a hook: its JSON on stdin)
    python -m agent.claude_code.hook --socket PATH evaluate [--quick] [--only REGEX] [FILE]

A hook whose runner is gone (the session ended, an attach was stopped) does nothing and exits 0:
it must never break the Claude Code session it sits in. Standard library only (it starts for
every tool call).
"""
from __future__ import annotations

import argparse
import json
import socket
import sys


def ask(path: str, request: dict, timeout: float | None) -> dict | None:
    """One request to the runner's bridge; None when no runner answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5.0)
            s.connect(path)
            s.settimeout(timeout)
            s.sendall(json.dumps(request).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    try:
        answer = json.loads(data)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ks-evaluate", description=(
        "Evaluate the candidate with the task's evaluator (build, constraints, correctness on every "
        "scenario, timing against the seed); the runner logs it in the session."))
    ap.add_argument("--socket", required=True, help=argparse.SUPPRESS)
    sub = ap.add_subparsers(dest="verb", required=True)
    sub.add_parser("hook", help="answer a Claude Code hook (its JSON on stdin)")
    ev = sub.add_parser("evaluate", help="evaluate a candidate")
    ev.add_argument("file", nargs="?", help="the file to evaluate (default: the task's candidate)")
    ev.add_argument("--quick", action="store_true", help="only the task's quick subset of scenarios")
    ev.add_argument("--only", metavar="REGEX", help="only scenarios whose name matches REGEX")
    args = ap.parse_args(argv)
    if args.verb == "hook":
        try:
            data = json.load(sys.stdin)
        except ValueError:
            return 0
        answer = ask(args.socket, {"verb": "hook", "input": data}, timeout=None)
        if answer is None:
            return 0
    else:
        answer = ask(args.socket, {"verb": "evaluate",
                                   "args": {"file": args.file, "quick": args.quick, "only": args.only}}, None)
        if answer is None:
            print("ks-evaluate: the KernelSeek runner does not answer (the session has ended?)", file=sys.stderr)
            return 1
    out = answer.get("stdout") or ""
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return int(answer.get("exit") or 0)


if __name__ == "__main__":
    sys.exit(main())
