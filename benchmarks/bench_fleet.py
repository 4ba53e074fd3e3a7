"""Benchmark of the fleet view (issue 14): a hundred sessions, ten of them written fast.

    python benchmarks/bench_fleet.py              # 100 sessions, 10 written at 200 events/s for 20 s
    python benchmarks/bench_fleet.py --quick      # smaller and shorter (a smoke test)
    python benchmarks/bench_fleet.py --json out.json

1. open: from constructing the app to every session's row on screen and a full frame drawn
   (target <= 1 s for 100 sessions);
2. keys: while a separate writer process appends 200 events/s to each of 10 running sessions
   (2,000 events/s in all, the writer holding each session's lock as a runner does), keys are
   pressed every 0.2 s; each key's time from being sent to the frame it caused (target <= 100 ms);
3. lag: how far behind its log a written session's row is, sampled with each key.

The app runs headless (Textual's test driver): everything is computed and composited as on a
terminal, only the bytes are not written to one. The synthetic logs are tests/support/synthetic_session.py's.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUPPORT = REPO / "tests" / "support"  # the synthetic-session generator lives with the tests
sys.path[:0] = [str(REPO), str(SUPPORT), str(Path(__file__).resolve().parent)]

from bench_console import KeyClock, peak_rss_mb  # noqa: E402

SIZE = (160, 48)


def spread(samples: list[float]) -> dict:
    """p50, p95 and max of latencies, in milliseconds."""
    s = sorted(samples)
    return {"n": len(s), "p50_ms": round(s[len(s) // 2] * 1000, 1),
            "p95_ms": round(s[int(0.95 * (len(s) - 1))] * 1000, 1), "max_ms": round(s[-1] * 1000, 1)}


WRITER = [sys.executable, str(SUPPORT / "synthetic_session.py"), "live"]  # tests/support's append_live


def make_fleet(root: Path, sessions: int, tool_calls: int) -> list[Path]:
    from synthetic_session import write_synthetic_session

    for i in range(sessions):
        write_synthetic_session(root / f"s{i:03d}", tool_calls + i % 17, seed=i, end=i % 4 == 0,
                                dp_every=25)
    return sorted(root.iterdir())


async def bench(root: Path, sessions: int, live: int, rate: float, seconds: float, tool_calls: int) -> dict:
    from console.app import ConsoleApp

    dirs = make_fleet(root, sessions, tool_calls)
    size_mb = sum(d.joinpath("events.jsonl").stat().st_size for d in dirs) / 1e6
    written = [d for d in dirs if not (d / "events.jsonl").read_text().rstrip().endswith('"max_turns"}')][:live]
    writer = subprocess.Popen([*WRITER, str(rate), str(seconds), "0", "0", *(str(d / "events.jsonl") for d in written)],
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(SUPPORT)])})
    assert writer.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    app = ConsoleApp.for_fleet(root, fleet_views=lambda entries: [None] * len(entries))
    result: dict = {"sessions": sessions, "logs_mb": round(size_mb, 1), "written_sessions": len(written),
                    "rate_per_session": rate}
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        while not getattr(screen, "loaded", False):
            await asyncio.sleep(0.002)
        app.screen._compositor.render_update(full=True)
        result["open_s"] = round(time.perf_counter() - t0, 3)
        result["rows"] = len(screen.table.rows)
        frames = KeyClock(app)
        keys = ["down", "down", "up", "pagedown", "home", "down", "end", "up", "pageup", "down"]
        latencies, lags = [], []
        t_end = time.monotonic() + seconds
        i = 0
        names = {d.name for d in written}
        while time.monotonic() < t_end:
            await asyncio.sleep(0.2)
            latencies.append(await frames.key(pilot, keys[i % len(keys)]))
            i += 1
            rows = [r for n, r in screen.rows.items() if n in names and r.last_t]
            if rows:
                lags.append(max(0.0, time.time() - min(r.last_t for r in rows)))
        total = int(writer.communicate(timeout=60)[0].strip().splitlines()[-1])
        result.update(keys=spread(latencies), lag_behind_logs=spread(lags), events_written=total,
                      rss_mb=round(peak_rss_mb(), 1))
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 sessions, 3 written, 5 s")
    ap.add_argument("--json", metavar="FILE", help="write the figures here too")
    args = ap.parse_args(argv)
    sessions, live, seconds, tool_calls = (20, 3, 5.0, 60) if args.quick else (100, 10, 20.0, 200)
    with tempfile.TemporaryDirectory(prefix="ks-bench-fleet-") as tmp:
        root = Path(tmp) / "sessions"
        root.mkdir()
        result = asyncio.run(bench(root, sessions, live, 200.0, seconds, tool_calls))
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    ok = result["open_s"] <= 1.0 and result["keys"]["p95_ms"] <= 100
    print("targets (open <= 1 s, key p95 <= 100 ms):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
