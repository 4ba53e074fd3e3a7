"""`kernelseek bank`: validate, list, show and suggest questions from the bank."""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import add_sessions_dir, print_wrapped

HELP = "the question bank: validate, list, show, suggest"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="bank_command", metavar="ACTION", required=True)
    fmt = {"formatter_class": p.formatter_class}
    v = sub.add_parser("validate", help="check bank files and report every defect with its line", **fmt)
    v.add_argument("files", metavar="FILE", nargs="*", help="bank YAML files or folders (default: the bundled bank)")
    v.add_argument("--json", action="store_true",
                   help="print {ok, files, items, problems, counts} as JSON (exit 1 if any problem)")
    ls = sub.add_parser("list", help="list bank items", **fmt)
    ls.add_argument("--trigger", metavar="KIND", help="only items serving this decision-point kind")
    ls.add_argument("--layer", metavar="LAYER", help="only items with this layer tag")
    ls.add_argument("--arch", metavar="ARCH", help="only items applying to this architecture")
    ls.add_argument("--set", metavar="SET", dest="set_name", help="only items of this set (core, hopper, ...)")
    ls.add_argument("--json", action="store_true", help="print the matching items as a JSON list")
    show = sub.add_parser("show", help="show one item", **fmt)
    show.add_argument("id", metavar="ID", help="the item's id (see `kernelseek bank list`)")
    show.add_argument("--json", action="store_true", help="print the item as JSON")
    sug = sub.add_parser("suggest", help="the questions to offer at a session's latest decision point", **fmt)
    sug.add_argument("session", metavar="SESSION", help="session directory, events.jsonl, or a transcript file")
    sug.add_argument("--kind", metavar="KIND", help="suggest for this kind of decision point instead of the latest")
    sug.add_argument("-n", metavar="N", type=int, default=9, help="how many questions (default 9)")
    sug.add_argument("--arch", metavar="ARCH", help="the task's architecture, when the session does not say")
    sug.add_argument("--config", metavar="FILE", help="detector knobs (YAML mapping)")
    sug.add_argument("--json", action="store_true",
                     help="print the decision point and the ranked suggestions as JSON")
    add_sessions_dir(sug)
    for q in (v, ls, show, sug):
        q.add_argument("--bank", metavar="FILE", action="append", help="use these bank files instead of the bundled bank")


def run(args: argparse.Namespace) -> int:
    return {"validate": _validate, "list": _list, "show": _show, "suggest": _suggest}[args.bank_command](args)


def _validate(args: argparse.Namespace) -> int:
    from questions.loader import read_bank

    paths = (args.files or []) + (args.bank or [])
    bank, problems = read_bank(paths or None)
    counts = bank.counts()
    if args.json:
        json.dump({"ok": not problems, "files": bank.files, "items": len(bank),
                   "problems": [{"file": p.file, "line": p.line, "item": p.item_id, "field": p.field,
                                 "message": p.message} for p in problems],
                   "counts": counts}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 1 if problems else 0
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) in {len(bank.files)} file(s)", file=sys.stderr)
        return 1
    print(f"ok: {len(bank)} items in {len(bank.files)} file(s)")
    for what in ("set", "trigger", "layer", "arch"):
        print(f"  {what + 's':<9}" + ", ".join(f"{k} {n}" for k, n in counts[what].items()))
    return 0


def _list(args: argparse.Namespace) -> int:
    from questions.detectors import ConfigError
    from questions.loader import LAYERS, load_bank
    from sessions.events import DECISION_KINDS

    if args.trigger and args.trigger not in DECISION_KINDS:
        raise ConfigError(f"unknown trigger {args.trigger!r} (known: {', '.join(DECISION_KINDS)})")
    if args.layer and args.layer not in LAYERS:
        raise ConfigError(f"unknown layer {args.layer!r} (known: {', '.join(LAYERS)})")
    bank = load_bank(args.bank)
    items = bank.filter(trigger=args.trigger, layer=args.layer, arch=args.arch, set=args.set_name)
    if args.json:
        json.dump([it.to_dict() for it in items], sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    width = max((len(it.id) for it in items), default=2)
    for it in items:
        print(f"{it.id:<{width}}  {','.join(it.triggers):<34} {it.text}")
    print(f"{len(items)} of {len(bank)} items", file=sys.stderr)
    return 0


def _show(args: argparse.Namespace) -> int:
    import difflib

    from questions.loader import BankError, load_bank

    bank = load_bank(args.bank)
    item = bank.get(args.id)
    if item is None:
        close = difflib.get_close_matches(args.id, list(bank.by_id), n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise BankError(f"no bank item {args.id!r}{hint}")
    if args.json:
        json.dump(item.to_dict(), sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    print(item.text)
    print(f"  id          {item.id}")
    print(f"  set         {item.set}")
    print(f"  triggers    {', '.join(item.triggers)}")
    print(f"  layers      {', '.join(item.layers)}")
    print(f"  arch        {', '.join(item.arch)}")
    print(f"  requires    {', '.join(item.requires) or '-'}")
    print(f"  provenance  {item.provenance}{' (verified)' if item.verified else ''}")
    if item.stats:
        print(f"  stats       {json.dumps(item.stats)}")
    if item.note:
        print(f"  note        {item.note}")
    print(f"  source      {item.source}:{item.line}")
    return 0


def _suggest(args: argparse.Namespace) -> int:
    from console.commands.detect import check_kinds, load_config
    from questions.detectors import DecisionPoint, detect
    from questions.loader import load_bank
    from questions.ranking import context_from_events, rank
    from questions.source import load_events

    check_kinds([args.kind] if args.kind else None)
    bank = load_bank(args.bank)
    loaded = load_events(args.session, args.sessions_dir)
    points = detect(loaded.events, load_config(args.config))
    if args.kind:
        matching = [dp for dp in points if dp.kind == args.kind]
        dp = matching[-1] if matching else DecisionPoint(args.kind, "(asked for this kind)", None)
    elif points:
        dp = points[-1]
    else:
        dp = None
    ctx = context_from_events(loaded.events, arch=args.arch)
    items = rank(dp, bank, ctx, limit=max(0, args.n)) if dp is not None else []
    if args.json:
        json.dump({"source": loaded.path, "arch": ctx.arch, "capabilities": sorted(ctx.capabilities),
                   "decision_point": dp.to_dict() if dp else None,
                   "suggestions": [{"id": it.id, "text": it.text, "asked": ctx.was_asked(it)} for it in items]},
                  sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if dp is None:
        print(f"{loaded.path}: no decision point yet")
        return 0
    where = f" at seq {dp.about_seq}" if dp.about_seq is not None else ""
    print_wrapped(f"{dp.kind}{where}: {dp.evidence}", 2)
    arch = ctx.arch or "unknown"
    caps = ", ".join(sorted(ctx.capabilities)) or "none"
    print(f"  arch {arch}; capabilities {caps}")
    for i, it in enumerate(items, 1):
        asked = "  (asked)" if ctx.was_asked(it) else ""
        print_wrapped(f"  {i}. {it.text}  [{it.id}]{asked}", 5)
    return 0
