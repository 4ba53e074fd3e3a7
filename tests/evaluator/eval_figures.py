"""Print the acceptance figures that tests recorded (JSON lines in $KS_FIGURES) as a short table.

    python3 tests/evaluator/eval_figures.py figures.jsonl
"""
from __future__ import annotations

import json
import sys


def main(path: str) -> int:
    rows = []
    try:
        with open(path, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
    except OSError as exc:
        print(f"no figures: {exc}")
        return 1
    width = max((len(r["test"]) for r in rows), default=10)
    print("\n=== acceptance figures ===")
    for r in rows:
        test = r.pop("test")
        text = ", ".join(f"{k}={v}" for k, v in r.items())
        print(f"{test:<{width}}  {text[:600]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "figures.jsonl"))
