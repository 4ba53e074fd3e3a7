"""The `kernelseek` command line: one parser, subcommands dispatched lazily.

Each subcommand is a module under `console.commands` exposing `HELP` (one line),
`add_arguments(parser)` and `run(args) -> int`. Those modules import nothing heavy at import
time, so `kernelseek --help` stays fast; the work (and Textual, anthropic, numpy) is imported
inside `run`.

Errors a user can cause are exceptions carrying an `exit_code` attribute (each layer defines
its own); they are printed as one line and never as a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

VERSION = "0.1.0"

# name -> module under console.commands; order is the order shown in --help
COMMANDS: dict[str, str] = {
    "start": "start",
    "steer": "steer",
    "console": "console_cmd",
    "attach": "attach",
    "replay": "replay",
    "run": "run",
    "eval": "eval",
    "detect": "detect",
    "bank": "bank",
    "mine": "mine",
    "import": "import_",
    "sessions": "sessions",
    "fleet": "fleet",
    "stop": "stop",
    "compare": "compare",
}


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelseek",
        description="Steer coding agents that optimise GPU kernels: watch, question, replay, mine.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"kernelseek {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"console.commands.{module_name}")
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=_Formatter,
        )
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # the command line as given, for a command that restarts itself (run drops its credentials);
    # None when called in-process with an argument list
    args.command_line = list(sys.argv[1:]) if argv is None else None
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        print("kernelseek: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # user errors carry exit_code; anything else is a bug
        code = getattr(exc, "exit_code", None)
        if code is None:
            raise
        print(f"kernelseek {args.command}: error: {exc}", file=sys.stderr)
        return int(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
