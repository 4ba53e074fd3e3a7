"""`kernelseek mine`: turn steering logs into question-bank candidates."""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import print_wrapped

HELP = "mine steering logs and transcripts into bank candidates"
DESCRIPTION = """\
Read human messages from steering logs ($KERNELSEEK_HOME/steering.jsonl), sessions (a directory
or its events.jsonl) and foreign transcripts (Claude Code, Codex); tell questions from directives
and from messages that supply information; cluster alike questions; and write each cluster as a
bank item (provenance mined, verified false) with its statistics: how often and in how many
sessions it was asked, the decision points before it, and the geomean change that followed.

--merge BANK folds the candidates into an existing bank file (its comments and layout kept):
matching items get their statistics replaced, new ones are appended; the result goes to --out
(which may be BANK itself). Candidates that match an item of the bundled bank (or --bank) are
not written again; the report lists them.

--with-model asks the model (the agent's: --model, else $KERNELSEEK_MODEL or the config's) for
two second opinions: which messages are questions at all (the rules lose askings typed in forms
they have no rule for), then how the question wordings group (the rules split a question asked
in words that share nothing; the model groups by meaning). It needs ANTHROPIC_API_KEY and sends
the messages' text (nothing else; credentials in it redacted) to the API; code checks each answer
(each message and wording once, bank questions and messages carrying code, output, files or a URL
never relabelled, askings sent from different bank items never joined, a question only the model
sees proposed only where its grouping places it beside one the rules read) and keeps the rules'
say where an answer is unusable. The report lists every message the model relabelled and every
candidate it made from several of the rules'. See docs/mining.md.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("logs", metavar="LOG", nargs="+", help="steering logs, sessions or transcripts")
    p.add_argument("--out", metavar="BANK.yaml", required=True, help="where to write the candidates")
    p.add_argument("--report", metavar="REPORT.md", help="also write a report ranking clusters by the gains that followed")
    p.add_argument("--merge", metavar="BANK", help="fold the candidates into this existing bank")
    p.add_argument("--bank", metavar="FILE", action="append",
                   help="bank files to match candidates against (default: the bundled bank)")
    p.add_argument("--window", metavar="N", type=int, default=3,
                   help="timed evaluations after a question that count as what followed it (default 3)")
    p.add_argument("--min-asked", metavar="N", type=int, default=1,
                   help="write only clusters asked at least N times (default 1)")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")
    p.add_argument("--sessions-dir", metavar="DIR", help="where session names are looked up")
    p.add_argument("--with-model", action="store_true",
                   help="let the model say which messages are questions and group them by meaning "
                        "(needs ANTHROPIC_API_KEY)")
    p.add_argument("--model", metavar="NAME", help="the model for --with-model (default: the agent's)")


class MineArgsError(Exception):
    exit_code = 2


def readable_logs(logs: list[str], sessions_dir: str | None) -> tuple[list[str], list[str]]:
    """(the LOGs that exist, notes about those left out). The per-user steering log that does not
    exist yet is no error (it is written when a runner first delivers a human message); any
    other LOG that is no file, directory or session name is."""
    from pathlib import Path

    from sessions.layout import sessions_root
    from sessions.steering import steering_log_path

    steering = steering_log_path()
    kept, notes = [], []
    for log in logs:
        p = Path(log).expanduser()
        if p.exists() or (sessions_root(sessions_dir) / log).is_dir():
            kept.append(log)
        elif p.name == "steering.jsonl" or (steering is not None and p.resolve() == steering.resolve()):
            notes.append(f"no steering log at {p} yet: it is written when a runner delivers a human "
                         f"message (kernelseek steer or run); nothing to mine from it")
        else:
            raise MineArgsError(f"{log}: no such file, session directory or session name")
    return kept, notes


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from questions.loader import Bank, read_bank
    from questions.mine import MineConfig, mine, render_report, save_bank
    from questions.mine.write import write_atomic

    if args.window < 1:
        raise MineArgsError("--window must be at least 1")
    merge_items = []
    if args.merge:
        if not Path(args.merge).is_file():
            raise MineArgsError(f"{args.merge}: no such bank file to merge into")
        bank, problems = read_bank([args.merge])
        if problems:
            raise MineArgsError(f"{problems[0]} (fix the bank first: kernelseek bank validate {args.merge})")
        merge_items = list(bank)
    ref, problems = read_bank(args.bank) if args.bank else read_bank()
    if problems:
        raise MineArgsError(str(problems[0]))
    merge_ids = {it.id for it in merge_items}
    reference = [it for it in ref if it.id not in merge_ids]
    logs, notes = readable_logs(args.logs, args.sessions_dir)
    for note in notes:
        print(f"kernelseek mine: {note}", file=sys.stderr)
    screen, regroup = model_opinions(args)
    result = mine(logs, MineConfig(window=args.window), bank=Bank(merge_items + reference),
                  sessions_dir=args.sessions_dir, regroup=regroup, screen=screen)
    rg, sc = result.regrouping, result.screening
    for what, opinion in (("reading", sc), ("grouping", rg)):
        for note in opinion.notes if opinion is not None else ():
            print(f"kernelseek mine: the model's {what}: {note}", file=sys.stderr)
    saved = save_bank(result, args.out, merge=args.merge, merge_items=merge_items, reference_items=reference,
                      min_asked=args.min_asked,
                      header=f"Mined by `kernelseek mine` from {len(result.reads)} log(s): "
                             f"{len(result.messages)} human messages, {result.sessions} session(s).\n"
                             f"Unverified candidates: read them before adding them to a bank.")
    if args.report:
        write_atomic(args.report, render_report(result, out_path=args.out, merged_into=args.merge))
    by = {k: len(v) for k, v in result.by_label().items()}
    if args.json:
        doc = {
            "logs": [{"path": r.path, "format": r.format, "sessions": r.sessions, "messages": len(r.messages),
                      "skipped": r.skipped, "notes": r.notes} for r in result.reads],
            "messages": len(result.messages), "sessions": result.sessions, "labels": by,
            "clusters": len(result.clusters), "new": saved["new"], "updated": saved["updated"],
            "regrouped": None if rg is None else rg.to_json(),
            "screened": None if sc is None else sc.to_json(),
            "known": saved["known"], "out": args.out, "report": args.report,
            "candidates": [{"id": c.id, "text": c.text, "stats": c.stats, "triggers": list(c.triggers),
                            "layers": list(c.layers), "arch": list(c.arch), "match": c.match}
                           for c in result.ranked()],
        }
        json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    split = ", ".join(f"{n} {k}" for k, n in by.items())
    print_wrapped(f"mined {len(result.messages)} human messages from {len(result.reads)} log(s), "
                  f"{result.sessions} session(s): {split}", 2)
    for r in result.reads:
        for note in r.notes:
            print(f"  note: {r.path}: {note}")
    if sc is not None and not sc.shown:
        print_wrapped(f"read by {sc.by}: {sc.notes[0] if sc.notes else 'nothing to read'}", 2)
    elif sc is not None:
        print_wrapped(f"read by {sc.by}: " + (f"of {sc.shown} distinct message(s), {len(sc.became_questions)} became "
                                               f"questions and {len(sc.no_longer_questions)} no longer are"
                                               + (f"; {len(sc.alone)} it called questions stand alone (not "
                                                  f"proposed)" if sc.alone else "")
                                               if sc.ok else "no usable answer; the rules' labels stand"), 2)
    if rg is not None:
        print_wrapped(f"grouped by {rg.by}: " + (f"{rg.rule_candidates} rule candidate(s) became {rg.candidates}; "
                                                 f"{rg.joined} made from several of the rules'"
                                                 if rg.ok else "no usable answer; the rules' grouping stands"), 2)
    known = sum(1 for c in result.clusters if c.match and c.match not in saved["updated"])
    line = f"{len(result.clusters)} question cluster(s): {len(saved['new'])} new candidate(s) written to {args.out}"
    if args.merge:
        line += f" (merged into {args.merge}; {len(saved['updated'])} item(s) updated)"
    if known:
        line += f"; {known} already in the bank"
    print_wrapped(line, 2)
    for c in result.ranked()[:5]:
        if c.match:
            continue
        g = c.stats.get("mean_gain")
        gain = f"{g * 100:+.1f}%" if isinstance(g, (int, float)) else "no gain measured"
        print_wrapped(f"  {c.stats.get('asked', 0):>3}x  {gain:>14}  {c.text}", 23)
    if args.report:
        print(f"report: {args.report}")
    return 0


def model_opinions(args: argparse.Namespace):
    """The model's screener and regrouper for --with-model ((None, None) without it). A missing
    key is one line (exit 2)."""
    if not args.with_model:
        if args.model:
            raise MineArgsError("--model names the model for --with-model; pass --with-model too")
        return None, None
    from agent.config import load_config
    from agent.grouping import ModelGrouper
    from agent.opinion import api_ask
    from agent.screening import ModelScreener

    config = load_config(model=args.model)
    ask, model = api_ask(config)

    def progress(line: str) -> None:
        print(f"kernelseek mine: {line} ...", file=sys.stderr)

    return ModelScreener(ask, model, progress=progress), ModelGrouper(ask, model, progress=progress)
