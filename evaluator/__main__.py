"""`python -m evaluator child|host|pin`: the evaluator's own processes and a task author's tool.

- `child --fd N`: the verdict of an isolated evaluation (see evaluator.isolate); the request
  arrives as JSON on stdin, JSON lines go to file descriptor N.
- `host --requests R --replies W`: the candidate host (see evaluator.host), started by the verdict
  inside the sandbox.
- `pin TASK`: write TASK's PINNED list (the sha256 of its trusted files; see evaluator.pins).

People use `kernelseek eval` instead of the first two.
"""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator")
    sub = parser.add_subparsers(dest="command", required=True)
    child = sub.add_parser("child", help="run one evaluation requested on stdin")
    child.add_argument("--fd", type=int, required=True, help="file descriptor for JSON lines")
    host = sub.add_parser("host", help="the candidate host (started by the verdict)")
    host.add_argument("--requests", type=int, required=True)
    host.add_argument("--replies", type=int, required=True)
    host.add_argument("--bulk", type=int, default=None, help="a shared buffer for large inputs and outputs")
    pin = sub.add_parser("pin", help="write a task's PINNED list of trusted-file hashes")
    pin.add_argument("task", help="task name (kernels/<task>) or folder")
    args = parser.parse_args(argv)
    if args.command == "host":
        from evaluator.host import main as host_main

        bulk = ["--bulk", str(args.bulk)] if args.bulk is not None else []
        return host_main(["--requests", str(args.requests), "--replies", str(args.replies), *bulk])
    if args.command == "pin":
        from evaluator.errors import TaskError
        from evaluator.pins import write_pins
        from evaluator.task import find_task_dir

        try:
            path = write_pins(find_task_dir(args.task))
        except TaskError as exc:
            print(f"python -m evaluator pin: error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
        return 0
    from evaluator.isolate import child_main

    return child_main(args.fd)


if __name__ == "__main__":
    sys.exit(main())
