"""What an alarm budget costs on the labelled real transcripts: recall at a given rate of alarms.

    .venv/bin/python benchmarks/alarm_budget.py [--part tune|score] [--rates 3,4,6] [--bursts 1,2,3]

Issue #12 asks for recall of real interventions >= 0.7 with <= 3 alarms per active hour. An alarm
comes just before at most one intervention (docs/questions.md, "The labelled benchmark"), so at
`r` alarms per active hour over `h` hours no detector can come before more than `r * h` of the
`n` interventions: recall <= r * h / n. This prints that ceiling for each rate, then what the
detectors do under a budget that a console could enforce live: a token bucket of `burst` alarms
refilled at `rate` per active hour (the scorer's active clock); a decision point that finds the
bucket empty is held back (not an alarm), whatever its kind. The figures are the scorer's
(`questions.benchmark.score`) on the points that remain.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from questions.benchmark.labels_io import PARTS, read_labels  # noqa: E402
from questions.benchmark.run import transcripts_root  # noqa: E402
from questions.benchmark.score import ACTIVE_GAP_CAP_S, score_transcript, summarise  # noqa: E402


def active_clock(events) -> dict[int, float]:
    """seq -> active seconds since the log began (gaps capped as the scorer caps them)."""
    clock, last, out = 0.0, None, {}
    for ev in events:
        t = ev.get("t")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            if last is not None and t > last:
                clock += min(t - last, ACTIVE_GAP_CAP_S)
            last = t
        if isinstance(ev.get("seq"), int):
            out[ev["seq"]] = clock
    return out


def budgeted(points, clock: dict[int, float], rate: float, burst: float) -> list:
    """The points a token bucket lets through (start points always: they are no alarm)."""
    tokens, prev, kept = burst, 0.0, []
    for dp in points:
        if dp.kind == "start":
            kept.append(dp)
            continue
        now = clock.get(dp.at_seq if dp.at_seq is not None else dp.about_seq, prev)
        tokens = min(burst, tokens + max(0.0, now - prev) * rate / 3600.0)
        prev = max(prev, now)
        if tokens >= 1.0:
            tokens -= 1.0
            kept.append(dp)
    return kept


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--labels", default=str(REPO / "questions" / "benchmark" / "labels"))
    ap.add_argument("--part", choices=PARTS, default="tune")
    ap.add_argument("--transcripts", metavar="DIR")
    ap.add_argument("--rates", default="2,3,4,6")
    ap.add_argument("--bursts", default="1,2,3")
    args = ap.parse_args(argv)
    from questions.annotate import config_for
    from questions.detectors import detect
    from questions.source import load_events

    root = transcripts_root(args.transcripts)
    logs = []
    for lf in read_labels(args.labels, args.part):
        events = load_events(root / lf.transcript).events
        points = detect(events, config_for(events[0] if events else None, None))
        logs.append((lf, events, points, active_clock(events)))
    rates = [float(x) for x in args.rates.split(",")]
    bursts = [float(x) for x in args.bursts.split(",")]

    def figures(select) -> object:
        return summarise([score_transcript(lf.stem, lf.part, ev, select(pts, clock), lf.labels)
                          for lf, ev, pts, clock in logs])["all"]

    free = figures(lambda pts, clock: pts)
    n, hours = free.interventions, free.hours
    print(f"part {args.part}: {len(logs)} transcripts, {hours:.2f} active hours, {n} interventions "
          f"({n / hours:.2f} per active hour)")
    print(f"  no budget: {free.alarms} alarms ({free.per_hour:.2f}/h), precision {free.precision:.2f}, "
          f"recall {free.recall:.2f}")
    print(f"  {'rate/h':>6} {'ceiling':>7} {'burst':>5} {'alarms/h':>8} {'precision':>9} {'recall':>6}")
    for rate in rates:
        ceiling = min(1.0, rate * hours / n) if n else 1.0
        for burst in bursts:
            f = figures(lambda pts, clock: budgeted(pts, clock, rate, burst))
            prec = "-" if f.precision is None else f"{f.precision:.2f}"
            print(f"  {rate:>6g} {ceiling:>7.2f} {burst:>5g} {f.per_hour:>8.2f} {prec:>9} {f.recall:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
