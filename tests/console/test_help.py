"""The command line explains itself: every option has help text, and every --help fits an
80-column terminal (filled to its width, never hard-wrapped wider)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from console.cli import build_parser


def _parsers(parser: argparse.ArgumentParser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


ALL = list(_parsers(build_parser()))


def test_every_option_and_argument_has_help_text():
    missing = []
    for path, parser in ALL:
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"kernelseek {' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


@pytest.mark.parametrize("columns", [80, 60])
def test_every_help_fits_the_terminal(columns, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(columns))
    too_wide = []
    for path, _ in ALL:
        parser = build_parser()
        for name in path:  # a fresh parser, so the formatter reads this COLUMNS
            parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
        for line in parser.format_help().splitlines():
            if len(line) > columns:
                too_wide.append(f"{' '.join(path) or '(top)'}: {line}")
    assert too_wide == []


def test_help_is_filled_to_a_wide_terminal_too():
    """Not hard-wrapped at some fixed width: at 160 columns a paragraph uses the room."""
    env = {**os.environ, "COLUMNS": "160"}
    out = subprocess.run([sys.executable, "-m", "console", "eval", "--help"], capture_output=True,
                         text=True, env=env, timeout=60).stdout
    assert max(len(line) for line in out.splitlines()) > 100
