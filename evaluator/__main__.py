"""`python -m evaluator child --fd N`: the isolated evaluation's child (see evaluator.isolate).

The request arrives as JSON on stdin; JSON lines go to file descriptor N. People use
`kernelseek eval` instead.
"""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator")
    sub = parser.add_subparsers(dest="command", required=True)
    child = sub.add_parser("child", help="run one evaluation requested on stdin")
    child.add_argument("--fd", type=int, required=True, help="file descriptor for JSON lines")
    args = parser.parse_args(argv)
    from evaluator.isolate import child_main

    return child_main(args.fd)


if __name__ == "__main__":
    sys.exit(main())
