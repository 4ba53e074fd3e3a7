"""Running the labelled benchmark: labels + transcripts -> detectors -> figures and a report.

    python -m questions.benchmark.run LABELS_DIR [--part tune|score] [--transcripts DIR] [--json] [-v]

is what `kernelseek detect --score LABELS_DIR` runs. Transcripts are never copied into the
project: they are found under `--transcripts`, else `$KERNELSEEK_TRANSCRIPTS`, else
`../shared/data/transcripts` next to the working directory or to the project.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from questions.benchmark.labels_io import INTERVENTIONS, PARTS, LabelsError, read_labels
from questions.benchmark.score import TranscriptScore, point_kinds, score_transcript, summarise

_PROJECT = Path(__file__).resolve().parents[2]


def transcripts_root(given: str | None) -> Path:
    if given:
        root = Path(given).expanduser()
        if not root.is_dir():
            raise LabelsError(f"{root}: no such transcripts folder")
        return root
    env = os.environ.get("KERNELSEEK_TRANSCRIPTS")
    candidates = ([Path(env).expanduser()] if env else []) + [
        Path.cwd().parent / "shared" / "data" / "transcripts", _PROJECT.parent / "shared" / "data" / "transcripts"]
    for c in candidates:
        if c.is_dir():
            return c
    raise LabelsError("no transcripts folder: pass --transcripts DIR (or set KERNELSEEK_TRANSCRIPTS)")


def score_labels(labels_dir: str, part: str | None = None, transcripts: str | None = None,
                 config=None) -> list[TranscriptScore]:
    """Detect on every labelled transcript (of one part) and match the points with the labels."""
    from questions.annotate import config_for
    from questions.detectors import detect
    from questions.source import load_events

    root = transcripts_root(transcripts)
    out = []
    for lf in read_labels(labels_dir, part):
        path = root / lf.transcript
        if not path.is_file():
            raise LabelsError(f"{lf.path}: transcript {lf.transcript} not found under {root}")
        loaded = load_events(path)
        points = detect(loaded.events, config_for(loaded.events[0] if loaded.events else None, config))
        out.append(score_transcript(lf.stem, lf.part, loaded.events, points, lf.labels, str(lf.path)))
    return out


def _pct(x: float | None) -> str:
    return "   -" if x is None else f"{x:4.2f}"


def report(scores: list[TranscriptScore], verbose: bool = False) -> str:
    lines: list[str] = []
    for part in PARTS:
        part_scores = [s for s in scores if s.part == part]
        if not part_scores:
            continue
        rows = summarise(part_scores)
        a = rows["all"]
        label = "tuned on: not evidence" if part == "tune" else "held out: scored only"
        lines.append(f"part {part} ({label}): {len(part_scores)} transcripts, {a.hours:.2f} active hours, "
                     f"{a.interventions} interventions, {a.answers} answers, {a.missed} missed moments")
        lines.append(f"  {'kind':<18} {'alarms':>6} {'right':>5} {'precision':>9} {'recall':>6} "
                     f"{'answered':>8} {'caught':>6} {'alarms/h':>8}")
        order = ["all"] + sorted((k for k in rows if k != "all"), key=lambda k: -rows[k].alarms)
        for k in order:
            f = rows[k]
            lines.append(f"  {k:<18} {f.alarms:>6} {f.right:>5} {_pct(f.precision):>9} {_pct(f.recall):>6} "
                         f"{f.answered:>3}/{f.answers:<4} {f.caught:>2}/{f.missed:<3} "
                         f"{'-' if f.per_hour is None else f'{f.per_hour:.2f}':>8}")
        lines.append(f"  {'transcript':<52} {'alarms':>6} {'right':>5} {'recall':>9} {'hours':>6}")
        for s in part_scores:
            iv = s.interventions
            got = sum(bool(m.matched) for m in iv)
            lines.append(f"  {s.name[:52]:<52} {len(s.points):>6} {sum(s.right):>5} {got:>4}/{len(iv):<4} "
                         f"{s.active_s / 3600:6.2f}")
        if verbose:
            for s in part_scores:
                lines.append(f"  -- {s.name}")
                for m in s.moments:
                    if m.label.act in INTERVENTIONS + ("answer", "missed"):
                        mark = "ok  " if m.matched else "MISS"
                        kinds = ",".join(sorted({k for n in m.matched for k in point_kinds(s.points[n])}))
                        lines.append(f"     {mark} {m.label.act:<9} seq {m.seq:>5} {kinds:<28} {m.label.text[:50]}")
                for dp, ok in zip(s.points, s.right):
                    if not ok:
                        lines.append(f"     WRONG alarm {'+'.join(point_kinds(dp)):<28} about {dp.about_seq}: "
                                     f"{dp.evidence[:90]}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def to_json(scores: list[TranscriptScore]) -> dict:
    doc: dict = {"definitions": "docs/questions.md#the-labelled-benchmark", "parts": {}}
    for part in PARTS:
        part_scores = [s for s in scores if s.part == part]
        if not part_scores:
            continue
        rows = summarise(part_scores)
        doc["parts"][part] = {
            "transcripts": [s.name for s in part_scores],
            "kinds": {k: f.to_dict() for k, f in rows.items()},
            "per_transcript": {s.name: {"alarms": len(s.points), "right": sum(s.right),
                                        "interventions": len(s.interventions),
                                        "recalled": sum(bool(m.matched) for m in s.interventions),
                                        "active_hours": round(s.active_s / 3600, 3)} for s in part_scores},
        }
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m questions.benchmark.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("labels", metavar="LABELS_DIR")
    ap.add_argument("--part", choices=PARTS)
    ap.add_argument("--transcripts", metavar="DIR")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    try:
        scores = score_labels(args.labels, args.part, args.transcripts)
    except LabelsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    write(scores, as_json=args.json, verbose=args.verbose)
    return 0


def write(scores: list[TranscriptScore], *, as_json: bool = False, verbose: bool = False, out=None) -> None:
    """The report (or its JSON) on `out` (stdout)."""
    out = out or sys.stdout
    if as_json:
        json.dump(to_json(scores), out, indent=1)
        out.write("\n")
    else:
        out.write(report(scores, verbose))


if __name__ == "__main__":
    sys.exit(main())
