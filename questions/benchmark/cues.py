"""Learn the miner's cues (`questions/mine/learned_cues.json`) from planted paraphrases.

    python -m questions.benchmark.cues [SET.yaml ...] [--exclude NAME ...] [--check]

Each planted question is asked five ways by different people. A question's topics are the ones
the topic table reads in at least two of its askings (and 40% of them); every content word of its
askings counts once per asking for each of those topics. A word becomes a cue for its commonest
topic when it appears in at least `MIN_ASKINGS` askings, at least `PURITY` of them belong to
questions asking for that topic, and at least `MIN_SETS` different sets (different writers) used
it so: a word one writer repeated is not a cue. The miner applies a cue only to an asking the
table names no topic for (`questions.mine.cues`).

Sets held out to score a round must not be learned from: `--exclude ag ah ...` leaves them out,
and the file records which sets it was learned from. `--check` relearns from those sets and
fails when the shipped file differs (the topic table changed since: rerun without `--check`).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from questions.benchmark.planted import PLANTED, PlantedSet, PlantedSetError, read_set
from questions.mine.cues import CUES_FILE, cue_words
from questions.mine.topics import topics

MIN_ASKINGS = 3
PURITY = 0.6
MIN_SETS = 3


def question_topics(askings: list[str]) -> set[str]:
    """The topics the table reads in at least two askings of one question, and 40% of them."""
    seen = Counter(t for a in askings for t in set(topics(a)))
    return {t for t, n in seen.items() if n >= max(2, 0.4 * len(askings))}


def learn(sets: list[PlantedSet]) -> dict[str, str]:
    """word -> topic, from paraphrases grouped by question (see the module's docstring)."""
    askings: Counter[str] = Counter()
    with_topic: dict[str, Counter[str]] = defaultdict(Counter)
    writers: dict[tuple[str, str], set[str]] = defaultdict(set)
    for ps in sets:
        for asked in ps.questions.values():
            wanted = question_topics(asked)
            for a in asked:
                for w in cue_words(a):
                    askings[w] += 1
                    for t in wanted:
                        with_topic[w][t] += 1
                        writers[(w, t)].add(ps.name)
    cues: dict[str, str] = {}
    for w, n in askings.items():
        if n < MIN_ASKINGS or not with_topic[w]:
            continue
        t, k = min(with_topic[w].items(), key=lambda kv: (-kv[1], kv[0]))
        if k / n >= PURITY and len(writers[(w, t)]) >= MIN_SETS:
            cues[w] = t
    return dict(sorted(cues.items()))


def cues_document(sets: list[PlantedSet]) -> dict:
    return {"learned_from": sorted(ps.name for ps in sets), "min_askings": MIN_ASKINGS, "purity": PURITY,
            "min_sets": MIN_SETS, "cues": learn(sets)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m questions.benchmark.cues", description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", metavar="SET.yaml", help="planted sets (default: every set shipped)")
    ap.add_argument("--exclude", nargs="*", default=[], metavar="NAME", help="sets held out (their `set:` names)")
    ap.add_argument("--check", action="store_true", help="relearn from the sets the shipped file names; fail if it differs")
    ap.add_argument("--out", default=str(CUES_FILE), help="where to write (default: the miner's own file)")
    args = ap.parse_args(argv)
    try:
        if args.check:
            shipped = json.loads(Path(args.out).read_text(encoding="utf-8"))
            names = set(shipped.get("learned_from", []))
            sets = [s for s in (read_set(p) for p in sorted(PLANTED.glob("set_*.yaml"))) if s.name in names]
            fresh = cues_document(sets)
            if fresh != shipped:
                print(f"{args.out}: stale (the topic table or the sets changed): "
                      f"run python -m questions.benchmark.cues --exclude <held-out sets>", file=sys.stderr)
                return 1
            print(f"{args.out}: {len(fresh['cues'])} cues, up to date")
            return 0
        paths = args.sets or sorted(str(p) for p in PLANTED.glob("set_*.yaml"))
        sets = [s for s in (read_set(p) for p in paths) if s.name not in set(args.exclude)]
    except (PlantedSetError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    doc = cues_document(sets)
    Path(args.out).write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(doc['cues'])} cues learned from {len(sets)} sets")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
