"""`kernelseek import`: convert a Claude Code or Codex transcript into a session."""
from __future__ import annotations

import argparse
import json
import sys

HELP = "import a Claude Code session or Codex rollout as a session"
DESCRIPTION = """\
Import a Claude Code session (~/.claude/projects/<project>/<session>.jsonl) or a Codex rollout
(~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) as a session directory that replay, detect and
mine read like one of ours. Benchmark figures found in tool output become evaluations marked
inferred (turn that off with --no-infer). Lines that are not JSON are reported and skipped."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", choices=["claude-code", "codex"], help="transcript format")
    p.add_argument("file", metavar="FILE", help="the transcript: a Claude Code session .jsonl or a Codex rollout")
    p.add_argument("--out", metavar="SESSION", required=True, help="session directory to write")
    p.add_argument("--no-infer", action="store_true",
                   help="do not turn benchmark figures in tool output into inferred evaluations")
    p.add_argument("--json", action="store_true", help="print the import statistics as JSON")


def run(args: argparse.Namespace) -> int:
    from sessions.importers import import_to_session

    result = import_to_session(args.kind, args.file, args.out, infer_evals=not args.no_infer)
    stats = result.stats
    for m in stats.malformed[:10]:
        print(f"kernelseek import: warning: {m.path}:{m.line}: {m.reason} (skipped)", file=sys.stderr)
    if len(stats.malformed) > 10:
        print(f"kernelseek import: warning: {len(stats.malformed) - 10} more malformed lines skipped",
              file=sys.stderr)
    if args.json:
        print(json.dumps(stats.to_dict(), indent=1))
        return 0
    ev = stats.events
    human = sum(stats.human.values())
    print(f"imported {args.file} -> {args.out}: {len(result.events)} events, {human} human messages, "
          f"{ev['tool_call']} tool calls, {ev['tool_result']} results, "
          f"{ev['eval_result']} inferred evaluations ({stats.seconds:.2f} s)")
    if stats.unknown:
        kinds = ", ".join(f"{k} ×{n}" for k, n in stats.unknown.most_common(8))
        print(f"  skipped records of unknown kinds: {kinds}")
    return 0
