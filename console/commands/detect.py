"""`kernelseek detect`: run the decision-point detectors over a session or transcript."""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import add_sessions_dir

HELP = "list the decision points in a session or transcript"
DESCRIPTION = """\
Run the decision-point detectors over a session (its directory, its events.jsonl, or its name)
or a foreign transcript (Claude Code JSONL, Codex rollout), offline, exactly as the runner runs
them live and as the console shows them, and list what fires: the kind (and every other kind
that fired on the same moment), the event it is about, how strong, and the evidence.

Knobs (see docs/questions.md) come from --config FILE.yaml, e.g. `stall: {evals: 3}`; without it
a session uses the detector settings its runner recorded, anything else the defaults.

--score LABELS_DIR scores the detectors against hand-labelled real transcripts instead (see
docs/questions.md, "The labelled benchmark"): precision, recall of real interventions and alarms
per active hour, per kind and overall, for each part of the split (--part tune|score).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="SESSION|TRANSCRIPT", nargs="?",
                   help="session directory, events.jsonl, or a transcript file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--kind", metavar="KIND", action="append", help="only decision points of this kind (repeatable)")
    p.add_argument("--config", metavar="FILE", help="detector knobs (YAML mapping)")
    p.add_argument("--suggest", metavar="N", type=int, default=0,
                   help="also show the top N bank questions at each decision point")
    p.add_argument("--bank", metavar="FILE", action="append", help="bank files to suggest from (default: the bundled bank)")
    p.add_argument("--score", metavar="LABELS_DIR", help="score against hand labels of real transcripts (no SOURCE)")
    p.add_argument("--part", choices=("tune", "score"), help="with --score: only this part of the split")
    p.add_argument("--transcripts", metavar="DIR",
                   help="with --score: where the labelled transcripts are (default: $KERNELSEEK_TRANSCRIPTS, "
                        "else ../shared/data/transcripts)")
    p.add_argument("-v", "--verbose", action="store_true", help="with --score: every miss and every wrong alarm")
    add_sessions_dir(p)


class UsageError(Exception):
    exit_code = 2


def load_config(path: str | None):
    """Detector knobs from a YAML file (None: none given)."""
    from questions.detectors import ConfigError, DetectorConfig

    if not path:
        return None
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: not valid YAML") from None
    try:
        return DetectorConfig.from_mapping(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def check_kinds(kinds: list[str] | None) -> None:
    from questions.detectors import ConfigError
    from sessions.events import DECISION_KINDS

    for k in kinds or ():
        if k not in DECISION_KINDS:
            raise ConfigError(f"unknown decision-point kind {k!r} (known: {', '.join(DECISION_KINDS)})")


def elapsed(events: list[dict]) -> dict[int, float]:
    """Seconds since the first event, by seq."""
    t0 = None
    out = {}
    for ev in events:
        t, seq = ev.get("t"), ev.get("seq")
        if isinstance(t, (int, float)) and isinstance(seq, int):
            if t0 is None:
                t0 = t
            out[seq] = t - t0
    return out


def clock(seconds: float | None) -> str:
    if seconds is None:
        return ""
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"+{h}:{m:02d}:{s:02d}" if h else f"+{m}:{s:02d}"


def score(args: argparse.Namespace) -> int:
    from questions.benchmark.run import report, score_labels, to_json

    if args.source:
        raise UsageError("--score takes no SESSION|TRANSCRIPT (the labels name their transcripts)")
    scores = score_labels(args.score, args.part, args.transcripts, load_config(args.config))
    if args.json:
        json.dump(to_json(scores), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(report(scores, args.verbose))
    return 0


def run(args: argparse.Namespace) -> int:
    from questions.annotate import config_for
    from questions.detectors import detect
    from questions.source import load_events
    from sessions.events import DECISION_KINDS

    if args.score:
        return score(args)
    if not args.source:
        raise UsageError("a SESSION|TRANSCRIPT to detect on is needed (or --score LABELS_DIR)")
    check_kinds(args.kind)
    given = load_config(args.config)
    loaded = load_events(args.source, args.sessions_dir)
    config = config_for(loaded.events[0] if loaded.events else None, given)
    points = detect(loaded.events, config)
    if args.kind:
        points = [dp for dp in points if set(dp.kinds) & set(args.kind)]
    ranked: list[list] = [[] for _ in points]
    if args.suggest > 0:
        from questions.loader import load_bank
        from questions.ranking import RankContext, rank

        bank = load_bank(args.bank)
        ctx = RankContext()
        by_seq = sorted(points, key=lambda dp: dp.at_seq if dp.at_seq is not None else -1)
        order = {id(dp): i for i, dp in enumerate(points)}
        it = iter(loaded.events)
        for dp in by_seq:  # the context as it stood when the point fired
            for ev in it:
                ctx.add(ev)
                if ev.get("seq") == dp.at_seq:
                    break
            ranked[order[id(dp)]] = rank(dp, bank, ctx, limit=args.suggest)
    counts = {k: 0 for k in DECISION_KINDS}
    for dp in points:  # a merged point counts once, for the kind it is shown as
        counts[dp.kind] = counts.get(dp.kind, 0) + 1
    if args.json:
        doc = {
            "source": loaded.path, "format": loaded.format, "events": len(loaded.events),
            "notes": loaded.notes, "counts": counts,
            "decision_points": [
                {**dp.to_dict(), **({"suggestions": [{"id": i.id, "text": i.text} for i in ranked[n]]}
                                    if args.suggest > 0 else {})}
                for n, dp in enumerate(points)
            ],
        }
        json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    since = elapsed(loaded.events)
    summary = ", ".join(f"{k} {n}" for k, n in counts.items() if n) or "none"
    print(f"{loaded.path} ({loaded.format}): {len(loaded.events)} events, {len(points)} decision points: {summary}")
    for note in loaded.notes:
        print(f"  note: {note}")
    for n, dp in enumerate(points):
        seq = "" if dp.about_seq is None else str(dp.about_seq)
        times = f" (\u00d7{dp.count})" if dp.count > 1 else ""
        print(f"{seq:>7} {clock(since.get(dp.about_seq)):>9}  {dp.kind:<17} {dp.strength:4.2f}  {dp.evidence}{times}")
        for r in dp.reasons[1:]:
            print(f"{'':>19}+ {r.get('kind'):<15} {r.get('evidence')}")
        for i, item in enumerate(ranked[n], 1):
            print(f"{'':>19}{i}. {item.text}  [{item.id}]")
    return 0
