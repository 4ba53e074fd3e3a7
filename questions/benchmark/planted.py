"""The miner on planted steering logs: does each question asked five ways come out as one candidate?

    python -m questions.benchmark.planted [SET.yaml ...] [--json] [-v]

A planted set (`questions/benchmark/planted/set_*.yaml`) names questions, each asked several
ways (reworded, typos, names and numbers changed), information messages (facts, causes and
solutions, many shaped as questions), directives and acknowledgements. They are written as one
steering log (sessions/steering.py's records, spread over sessions) and mined with the bundled
bank. For each planted question:

- **one candidate**: every asking the miner proposed is in one cluster, that cluster holds no
  other planted question's askings and no non-question, and at least four of five askings (80%)
  were proposed;
- **split**: its proposed askings are in several clusters; **merged**: its cluster also holds
  another question's or a non-question's; **lost**: fewer than 80% proposed.

Also counted: information messages proposed as questions (anything but 0 fails). A cluster that
matches an existing bank item is still a cluster here: the miner reports it with its match.
"""
from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PLANTED = Path(__file__).resolve().parent / "planted"


@dataclass
class PlantedSet:
    name: str
    questions: dict[str, list[str]]
    information: list[str] = field(default_factory=list)
    directives: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


class PlantedSetError(Exception):
    """A planted set that cannot be read: one line naming the file (and the line)."""


def read_set(path: str | Path) -> PlantedSet:
    from sessions.yamlfile import YamlFileError, read_yaml

    try:
        data = read_yaml(path)
    except YamlFileError as exc:
        raise PlantedSetError(str(exc)) from None
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, list):
        raise PlantedSetError(f"{path}: no `questions:` list (see questions/benchmark/planted/set_a.yaml)")
    qs: dict[str, list[str]] = {}
    for i, q in enumerate(questions, 1):
        if not (isinstance(q, dict) and isinstance(q.get("key"), str) and isinstance(q.get("asked"), list)):
            raise PlantedSetError(f"{path}: question {i} needs a `key` and an `asked` list")
        qs[q["key"]] = [str(t) for t in q["asked"]]
    return PlantedSet(str(data.get("set") or Path(path).stem), qs, list(data.get("information") or []),
                      list(data.get("directives") or []), list(data.get("other") or []))


def records(ps: PlantedSet, seed: int = 1) -> list[tuple[dict, str | None, str]]:
    """(steering record, planted question key or None, planted label) for every message, spread
    over a few sessions in a shuffled order with evaluations moving between them."""
    rng = random.Random(seed)
    items: list[tuple[str, str | None, str]] = [(t, k, "question") for k, ts in ps.questions.items() for t in ts]
    items += [(t, None, "information") for t in ps.information]
    items += [(t, None, "directive") for t in ps.directives]
    items += [(t, None, "other") for t in ps.other]
    rng.shuffle(items)
    out = []
    t = 1_790_000_000.0
    geomean = 1.0
    for i, (text, key, label) in enumerate(items):
        session = f"/planted/{ps.name}/session-{i % 6}"
        t += rng.uniform(120, 900)
        geomean *= 1.0 + rng.uniform(-0.02, 0.05)
        out.append(({"v": 1, "t": round(t, 3), "session": session, "session_name": session.rsplit("/", 1)[-1],
                     "task": "planted", "seq": 10 + 7 * i, "text": text, "source": "free", "kind": "message",
                     "bank_id": None, "inbox_id": None,
                     "decision_point": {"kind": "stall", "evidence": "planted", "seq": 9 + 7 * i},
                     "metrics": {"geomean": round(geomean, 4), "all_correct": True, "passed": 4, "total": 4}},
                    key, label))
    return out


def thinned(ps: PlantedSet, seed: int) -> PlantedSet:
    """The set with each question asked 2 to 5 of its ways (drawn with `seed`): a real log does not
    ask every question five times, and a grouper that could count to five would read the set's
    shape rather than the askings' meaning."""
    rng = random.Random(seed)
    qs = {k: rng.sample(ts, rng.randint(min(2, len(ts)), len(ts))) for k, ts in ps.questions.items()}
    return PlantedSet(ps.name, qs, ps.information, ps.directives, ps.other)


@functools.lru_cache(maxsize=1)
def _bundled_bank():
    """The bundled bank, read once per process (the benchmark scores a hundred sets against it)."""
    from questions.loader import load_bank

    return load_bank()


def score(ps: PlantedSet, seed: int = 1, regroup=None, screen=None) -> dict:
    """Mine the set and measure it (see the module's docstring). `screen`, `regroup`: second
    opinions on which messages are questions and on the grouping (`questions.mine.screen`,
    `questions.mine.regroup`; `python -m agent.grouping` passes the model's)."""
    from questions.mine import MineConfig, mine

    recs = records(ps, seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "steering.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r, _, _ in recs), encoding="utf-8")
        result = mine([path], MineConfig(), bank=_bundled_bank(), regroup=regroup, screen=screen)
    truth = {r["text"]: (key, label) for r, key, label in recs}
    where: dict[str, int] = {}
    for ci, c in enumerate(result.clusters):
        for m in c.members:
            where[m.text] = ci
    info_proposed = [t for t, (_, lab) in truth.items() if lab == "information" and t in where]
    per_question = {}
    for key, asked in ps.questions.items():
        found = [where[t] for t in asked if t in where]
        clusters = sorted(set(found))
        others = [m.text for ci in clusters for m in result.clusters[ci].members
                  if truth.get(m.text, (None,))[0] != key]
        if len(found) < 0.8 * len(asked):
            verdict = "lost"
        elif len(clusters) > 1:
            verdict = "split"
        elif others:
            verdict = "merged"
        else:
            verdict = "one"
        per_question[key] = {"verdict": verdict, "proposed": len(found), "asked": len(asked),
                             "clusters": len(clusters), "with_others": others[:5],
                             "candidates": [result.clusters[ci].text for ci in clusters],
                             "matches": [result.clusters[ci].match for ci in clusters if result.clusters[ci].match]}
    one = sum(1 for v in per_question.values() if v["verdict"] == "one")
    sc = result.screening
    screened = None if sc is None else sc.to_json(planted=lambda t: truth.get(t, (None, "?"))[1])
    return {"set": ps.name, "questions": len(per_question), "one_candidate": one,
            "one_candidate_rate": round(one / len(per_question), 3) if per_question else None,
            "information": len(ps.information), "information_proposed": info_proposed,
            "candidates": len(result.clusters), "per_question": per_question, "screened": screened}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m questions.benchmark.planted", description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", metavar="SET.yaml", help="planted sets (default: every set shipped)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--thin", metavar="SEED", type=int, help="ask each question 2 to 5 of its ways (drawn with SEED)")
    args = ap.parse_args(argv)
    paths = args.sets or sorted(str(p) for p in PLANTED.glob("set_*.yaml"))
    try:
        sets = read_sets(paths, args.thin)
    except PlantedSetError as exc:
        print(f"python -m questions.benchmark.planted: error: {exc}", file=sys.stderr)
        return 2
    results = [score(ps) for ps in sets]
    if args.json:
        json.dump(results, sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        print_results(results, verbose=args.verbose)
    ok = all(r["one_candidate_rate"] >= 0.9 and not r["information_proposed"] for r in results)
    return 0 if ok else 1


def read_sets(paths: list[str], thin: int | None = None) -> list[PlantedSet]:
    """The sets at `paths`, each thinned with seed `thin` when given (raises PlantedSetError)."""
    sets = [read_set(p) for p in paths]
    return [thinned(ps, thin) for ps in sets] if thin is not None else sets


def print_results(results: list[dict], *, verbose: bool = False, grouped_by: list[str] | None = None) -> None:
    """Each set's line, then its questions that did not come out as one candidate (all, verbose) and
    the information it proposed. `grouped_by`: per set, who regrouped it (agent.grouping)."""
    for i, r in enumerate(results):
        print(f"set {r['set']}: {r['one_candidate']}/{r['questions']} planted questions came out as one candidate "
              f"({r['one_candidate_rate']:.0%}); {len(r['information_proposed'])}/{r['information']} information "
              f"messages proposed as questions; {r['candidates']} candidates in all"
              + (f"; grouped by {grouped_by[i]}" if grouped_by else ""))
        for key, v in r["per_question"].items():
            if verbose or v["verdict"] != "one":
                print(f"  {v['verdict']:<6} {key}: {v['proposed']}/{v['asked']} proposed in {v['clusters']} "
                      f"cluster(s){'; with ' + repr(v['with_others']) if v['with_others'] else ''}")
                if verbose:
                    for c in v["candidates"]:
                        print(f"         \u2192 {c}")
        for t in r["information_proposed"]:
            print(f"  information proposed: {t}")
        sc = r.get("screened")
        if sc:
            moved = sc["became_questions"] + sc["no_longer_questions"]
            print(f"  read by {sc['by']}: {len(sc['became_questions'])} became questions "
                  f"({sum(1 for m in sc['became_questions'] if m['planted'] != 'question')} not planted as one), "
                  f"{len(sc['no_longer_questions'])} no longer questions "
                  f"({sum(1 for m in sc['no_longer_questions'] if m['planted'] == 'question')} planted as one), "
                  f"{len(sc['alone'])} called questions but alone"
                  if sc["ok"] else f"  read by {sc['by']}: no usable answer; the rules' labels stand")
            if verbose:
                for m in moved + [{**m, "label": "(alone)"} for m in sc["alone"]]:
                    print(f"    {m.get('rules', 'question')} -> {m.get('label', 'question')} "
                          f"(planted {m['planted']}): {m['text']}")


if __name__ == "__main__":
    sys.exit(main())
