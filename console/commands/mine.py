"""`kernelseek mine`: turn steering logs into question-bank candidates."""
from __future__ import annotations

import argparse

from console.commands import not_yet

HELP = "mine steering logs and transcripts into bank candidates"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("logs", metavar="LOG", nargs="+", help="steering logs, sessions or transcripts")
    p.add_argument("--out", metavar="BANK.yaml", required=True, help="where to write the candidates")
    p.add_argument("--report", metavar="REPORT.md", help="also write a report ranking clusters by the gains that followed")
    p.add_argument("--merge", metavar="BANK", help="fold the candidates into this existing bank")


def run(args: argparse.Namespace) -> int:
    return not_yet("mine", 7)
