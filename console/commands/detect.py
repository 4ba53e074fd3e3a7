"""`kernelseek detect`: run the decision-point detectors over a session or transcript."""
from __future__ import annotations

import argparse
import json
import sys

from console.commands import add_sessions_dir, print_wrapped

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
    from sessions.yamlfile import YamlFileError, read_yaml

    try:
        data = read_yaml(path)
    except YamlFileError as exc:
        raise ConfigError(str(exc)) from None
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


def clock(seconds: float | None) -> str:
    if seconds is None:
        return ""
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"+{h}:{m:02d}:{s:02d}" if h else f"+{m}:{s:02d}"


def score(args: argparse.Namespace) -> int:
    from questions.benchmark.run import score_labels, write

    if args.source:
        raise UsageError("--score takes no SESSION|TRANSCRIPT (the labels name their transcripts)")
    write(score_labels(args.score, args.part, args.transcripts, load_config(args.config)),
          as_json=args.json, verbose=args.verbose)
    return 0


def run(args: argparse.Namespace) -> int:
    from array import array

    from questions.annotate import config_for
    from questions.detectors import Detectors
    from questions.moments import fold
    from questions.source import open_events
    from sessions.events import DECISION_KINDS

    if args.score:
        return score(args)
    if not args.source:
        raise UsageError("a SESSION|TRANSCRIPT to detect on is needed (or --score LABELS_DIR)")
    check_kinds(args.kind)
    given = load_config(args.config)
    stream = open_events(args.source, args.sessions_dir)
    bank = ctx = None
    if args.suggest > 0:
        from questions.loader import load_bank
        from questions.ranking import RankContext, rank

        bank, ctx = load_bank(args.bank), RankContext()
    # one pass over the log: events are fed and dropped (a long log is read in slices); only the
    # points, their suggestions as ranked at that moment, and each event's time are kept
    det = None
    emitted = []
    ranked: dict[str, list] = {}
    times = array("d")
    n = 0
    for ev in stream:
        if det is None:
            det = Detectors(config_for(ev, given))
        n += 1
        seq = ev.get("seq")
        t = ev.get("t")
        if isinstance(seq, int) and 0 <= seq <= len(times) + 100_000 and isinstance(t, (int, float)):
            while len(times) <= seq:
                times.append(float("nan"))
            times[seq] = float(t)
        if ctx is not None:
            ctx.add(ev)
        for dp in det.feed(ev):
            emitted.append(dp)
            if ctx is not None and dp.updates is None:
                ranked[dp.id] = rank(dp, bank, ctx, limit=args.suggest)
    points = fold(emitted)
    if args.kind:
        points = [dp for dp in points if set(dp.kinds) & set(args.kind)]
    counts = {k: 0 for k in DECISION_KINDS}
    for dp in points:  # a merged point counts once, for the kind it is shown as
        counts[dp.kind] = counts.get(dp.kind, 0) + 1
    if args.json:
        doc = {
            "source": stream.path, "format": stream.format, "events": n,
            "notes": stream.notes, "counts": counts,
            "decision_points": [
                {**dp.to_dict(), **({"suggestions": [{"id": i.id, "text": i.text} for i in ranked.get(dp.id, [])]}
                                    if args.suggest > 0 else {})}
                for dp in points
            ],
        }
        json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    t0 = next((t for t in times if t == t), None)  # the first known time (NaN is unknown)

    def since(seq):
        if t0 is None or not isinstance(seq, int) or not 0 <= seq < len(times) or times[seq] != times[seq]:
            return None
        return times[seq] - t0

    summary = ", ".join(f"{k} {c}" for k, c in counts.items() if c) or "none"
    print_wrapped(f"{stream.path} ({stream.format}): {n} events, {len(points)} decision points: {summary}", 2)
    for note in stream.notes:
        print(f"  note: {note}")
    for dp in points:
        seq = "" if dp.about_seq is None else str(dp.about_seq)
        times_ = f" (\u00d7{dp.count})" if dp.count > 1 else ""
        print_wrapped(f"{seq:>7} {clock(since(dp.about_seq)):>9}  {dp.kind:<17} {dp.strength:4.2f}  "
                      f"{dp.evidence}{times_}", 43)
        for r in dp.reasons[1:]:
            print_wrapped(f"{'':>19}+ {r.get('kind'):<15} {r.get('evidence')}", 37)
        for i, item in enumerate(ranked.get(dp.id, []), 1):
            print_wrapped(f"{'':>19}{i}. {item.text}  [{item.id}]", 22)
    return 0
