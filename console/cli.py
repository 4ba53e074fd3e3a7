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



def installed_version() -> str:
    """The version pip installed (pyproject.toml's, through the package metadata); a checkout run
    without installing says so instead of guessing a number."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kernelseek")
    except PackageNotFoundError:
        return "(not installed: run from a checkout)"


class VersionAction(argparse.Action):
    """`--version`: asks the metadata only when given (it costs a scan of the installed packages,
    which `kernelseek --help` should not pay)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"kernelseek {installed_version()}")
        parser.exit()

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


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with descriptions filled to the terminal's width paragraph by
    paragraph (a blank line ends one) and indented lines (examples, lists) kept as written."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)

    def start_section(self, heading: str | None) -> None:
        """A group's heading, wrapped when it is wider than the terminal (argparse never does)."""
        if heading and len(heading) + 1 > self._width:
            import textwrap

            heading = "\n".join(textwrap.wrap(heading, max(20, self._width - 1)))
        super().start_section(heading)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        out: list[str] = []
        for para in textwrap.dedent(text).strip("\n").split("\n\n"):
            lines = para.split("\n")
            if any(line.startswith((" ", "\t")) for line in lines):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(textwrap.fill(" ".join(lines), width, initial_indent=indent,
                                         subsequent_indent=indent))
        return "\n\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelseek",
        description="Steer coding agents that optimise GPU kernels: watch, question, replay, mine.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction, help="show the installed version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"console.commands.{module_name}")
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=HelpFormatter,
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
