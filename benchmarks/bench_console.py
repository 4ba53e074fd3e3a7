"""Benchmark of the console on synthetic sessions (the figures docs/console.md quotes).

    .venv/bin/python benchmarks/bench_console.py            # all four, about a minute
    .venv/bin/python benchmarks/bench_console.py --quick    # smaller and shorter (a smoke test)
    .venv/bin/python benchmarks/bench_console.py --json out.json

1. open: a session of 12,000 tool calls (~48,000 events, ~1,200 evaluation reports) whose tool
   outputs are 2-20 KB (what agents produce; ~87 MB), in replay, from constructing the app to
   every event folded and the first screen drawn, and the CPU time that took (target <= 1 s);
2. jump: to each decision point in turn with `d`, and to 50 random ones directly, each with the
   screen redrawn (target <= 50 ms);
3. follow: a separate writer process appends 2,000 events/s for 30 s to a live session while
   the console follows it and keys are pressed every 0.2 s; each key's time to be handled and
   the screen redrawn is measured, and how far the console lags the log (target <= 100 ms);
4. memory: peak RSS of a fresh process that opens a 100,000-event session (target <= 300 MB).

The app runs headless (Textual's test driver): everything is computed and composited as on a
terminal, only the bytes are not written to one. Run it on a loaded machine with `--load N`
(N busy loops at nice 0 for the whole run, one per core being the usual), and say so.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUPPORT = REPO / "tests" / "support"  # the synthetic-session generator lives with the tests
sys.path[:0] = [str(REPO), str(SUPPORT)]
CHILD_PATH = os.pathsep.join([str(REPO), str(SUPPORT), str(Path(__file__).resolve().parent)])
SIZE = (160, 48)
OUTPUT_BYTES = (2000, 20000)


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _stats(samples: list[float]) -> dict:
    s = sorted(samples)
    return {"n": len(s), "p50_ms": _ms(statistics.median(s)), "p95_ms": _ms(s[int(0.95 * (len(s) - 1))]),
            "max_ms": _ms(s[-1])}


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM; ru_maxrss would carry a parent's peak over
    fork and exec)."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_session(root: Path, tool_calls: int, output_bytes: tuple[int, int] | None = None):
    from synthetic_session import write_synthetic_session

    return write_synthetic_session(root, tool_calls, output_bytes=output_bytes)


class FrameClock:
    """Times the frames the app sends to its terminal (App._display), so that a key's latency is
    measured from the key to the last frame it caused, not to when the Pilot stops waiting."""

    def __init__(self, app) -> None:
        self.times: list[float] = []
        original = app._display

        def display(screen, renderable) -> None:
            original(screen, renderable)
            if renderable is not None:
                self.times.append(time.perf_counter())

        app._display = display

    async def key(self, pilot, key: str) -> float:
        """Press a key with the Pilot (which then waits for the app to go idle)."""
        n = len(self.times)
        t0 = time.perf_counter()
        await pilot.press(key)
        return (self.times[-1] if len(self.times) > n else time.perf_counter()) - t0


class KeyClock(FrameClock):
    """Keys sent the way a terminal sends them (no waiting for idle, which a busy app never is):
    a key's latency runs from sending it to the first frame drawn after its action ran."""

    def __init__(self, app) -> None:
        super().__init__(app)
        self.app = app
        self.handled: list[float] = []
        original = app.run_action

        async def run_action(*args, **kw):
            result = await original(*args, **kw)
            self.handled.append(time.perf_counter())
            return result

        app.run_action = run_action

    async def key(self, pilot, key: str, timeout: float = 2.0) -> float:
        from textual import events

        n_handled = len(self.handled)
        t0 = time.perf_counter()
        self.app._driver.send_message(events.Key(key, key if len(key) == 1 else None))
        while len(self.handled) == n_handled:
            if time.perf_counter() - t0 > timeout:
                return timeout
            await asyncio.sleep(0.001)
        done = self.handled[n_handled]
        while True:
            after = [t for t in self.times if t >= done]
            if after:
                return after[0] - t0
            if time.perf_counter() - done > 0.5:  # nothing to redraw
                return done - t0
            await asyncio.sleep(0.001)


async def bench_open_and_jump(root: Path, tool_calls: int) -> dict:
    from console.app import ConsoleApp

    sp = make_session(root / "open", tool_calls, OUTPUT_BYTES)
    size_mb = sp.events.stat().st_size / 1e6
    t0, cpu0 = time.perf_counter(), time.process_time()
    app = ConsoleApp(sp, mode="replay", clock=lambda: 0.0)
    first: list[float] = []  # when a frame first showed the session (its first row)
    shown = app._display

    def display(screen, renderable) -> None:
        shown(screen, renderable)
        if not first and renderable is not None and len(getattr(screen, "model", ()) and screen.model.rows):
            first.append(time.perf_counter() - t0)

    app._display = display
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        while not getattr(screen, "loaded", False):
            await asyncio.sleep(0.002)
            screen = app.screen
        app.screen._compositor.render_update(full=True)
        opened, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        model = screen.model
        result = {"events": len(model), "rows": len(model.rows), "file_mb": round(size_mb, 1),
                  "open_s": round(opened, 3), "open_cpu_s": round(cpu, 3),
                  "first_screen_s": round(first[0], 3) if first else None}
        frames = KeyClock(app)
        # jump with the key, from the start to the last decision point: key to its frame
        presses = [await frames.key(pilot, "d") for _ in model.decisions]
        assert screen.transcript.cursor == model.decisions[-1].row
        result["jump_key_d"] = _stats(presses)
        # jump to random decision points: the state update and a whole-screen frame, no idle
        rng = random.Random(1)
        direct = []
        for _ in range(50):
            d = rng.choice(model.decisions)
            t = time.perf_counter()
            screen.go_to_row(d.row)
            app.screen._compositor.render_update(full=True)
            direct.append(time.perf_counter() - t)
            await pilot.pause()
        result["jump_direct"] = _stats(direct)
        await pilot.press("home", "slash", *"rescale is the suspect")
        result["search_first_match_ms"] = _ms(await frames.key(pilot, "enter"))
    return result


WRITER = [sys.executable, str(SUPPORT / "synthetic_session.py"), "live"]  # tests/support's append_live


async def bench_follow(root: Path, rate: float, seconds: float) -> dict:
    from console.app import ConsoleApp
    from sessions.layout import SessionPaths

    sp = SessionPaths(root / "live")
    sp.evals.mkdir(parents=True)
    writer = subprocess.Popen([*WRITER, str(rate), str(seconds), "7", "1", str(sp.events)],
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": CHILD_PATH})
    assert writer.stdout.readline().strip() == "ready"
    while not sp.events.exists():
        await asyncio.sleep(0.01)
    app = ConsoleApp(sp, mode="live")
    keys = ["up", "up", "down", "d", "enter", "enter", "end", "D", "end", "pageup", "end"]
    latencies, lags = [], []
    async with app.run_test(size=SIZE) as pilot:
        frames = KeyClock(app)
        cpu0, wall0 = time.process_time(), time.monotonic()
        t_end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < t_end:
            await asyncio.sleep(0.2)
            latencies.append(await frames.key(pilot, keys[i % len(keys)]))
            i += 1
            model = app.screen.model
            if len(model.times):
                lags.append(max(0.0, time.time() - model.times[-1]))
        cpu_share = (time.process_time() - cpu0) / max(1e-9, time.monotonic() - wall0)
        written = int(writer.communicate(timeout=30)[0].strip() or 0)
        deadline = time.monotonic() + 10
        while len(app.screen.model) < written and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        caught_up = len(app.screen.model)
    return {"rate_per_s": rate, "seconds": seconds, "written": written, "shown": caught_up,
            "keys": _stats(latencies), "lag_behind_log": _stats(lags),
            "console_cpu_share": round(cpu_share, 3),
            "rss_mb_after": round(peak_rss_mb(), 1)}


MEMORY_CHILD = r"""
import asyncio, sys, time
from pathlib import Path
from bench_console import peak_rss_mb
from console.app import ConsoleApp
from sessions.layout import SessionPaths
async def main():
    app = ConsoleApp(SessionPaths(Path(sys.argv[1])), mode="replay", clock=lambda: 0.0)
    async with app.run_test(size=(160, 48)) as pilot:
        while not getattr(app.screen, "loaded", False):
            await asyncio.sleep(0.01)
        for key in ("end", "d", "enter", "home"):
            await pilot.press(key)
        n = len(app.screen.model)
    print(n, peak_rss_mb())
asyncio.run(main())
"""


def bench_memory(root: Path, tool_calls: int) -> dict:
    sp = make_session(root / "memory", tool_calls)
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(sp.root)], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "PYTHONPATH": CHILD_PATH})
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    events, rss = out.stdout.split()
    baseline = subprocess.run([sys.executable, "-c", "import console.app\nfrom bench_console import "
                               "peak_rss_mb\nprint(peak_rss_mb())"],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": CHILD_PATH})
    return {"events": int(events), "file_mb": round(sp.events.stat().st_size / 1e6, 1),
            "peak_rss_mb": round(float(rss), 1), "import_only_rss_mb": round(float(baseline.stdout), 1)}


def load_average() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


class BusyLoops:
    """N processes spinning at nice 0 (one per core is "a loaded machine")."""

    def __init__(self, n: int) -> None:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(n)]
        if n:
            time.sleep(2.0)  # let the scheduler see them

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_console.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 5 s of following")
    ap.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    ap.add_argument("--only", choices=("open", "follow", "memory"), help="run one part")
    ap.add_argument("--load", metavar="N", type=int, default=0,
                    help="run N busy loops (nice 0) for the whole benchmark: N=2 loads a 2-core box")
    ap.add_argument("--opens", metavar="N", type=int, default=1, help="open the session N times (median)")
    args = ap.parse_args(argv)
    calls, rate, seconds, mem_calls = (12_000, 2000.0, 30.0, 25_000) if not args.quick else (2_000, 2000.0, 5.0, 4_000)
    results: dict = {"load": {"busy_loops": args.load, "cores": os.cpu_count()}}
    with tempfile.TemporaryDirectory(prefix="ks-bench-") as tmp:
        root = Path(tmp)
        loops = BusyLoops(args.load)
        results["load"]["loadavg_before"] = load_average()
        print(f"load: {args.load} busy loop(s) on {os.cpu_count()} cores; load average {load_average()}")
        try:
            if args.only in (None, "open"):
                runs = [asyncio.run(bench_open_and_jump(root / f"o{i}", calls)) for i in range(args.opens)]
                r = sorted(runs, key=lambda x: x["open_s"])[len(runs) // 2]
                r["open_s_all"] = [x["open_s"] for x in runs]
                r["open_cpu_s_all"] = [x["open_cpu_s"] for x in runs]
                r["open_cpu_s_median"] = statistics.median(r["open_cpu_s_all"])
                results["open_and_jump"] = r
                print(f"open {r['events']:,} events ({r['file_mb']} MB, {r['rows']:,} rows) in replay: "
                      f"all read and drawn in {r['open_s']:.3f} s (cpu {r['open_cpu_s']:.3f} s; all runs "
                      f"{r['open_s_all']}, cpu {r['open_cpu_s_all']}), the first screen of it in "
                      f"{r['first_screen_s']} s   [target <= 1 s]")
                j, d = r["jump_key_d"], r["jump_direct"]
                print(f"jump to the next decision point (key d, {j['n']}x): p50 {j['p50_ms']} ms, "
                      f"p95 {j['p95_ms']} ms, max {j['max_ms']} ms   [target <= 50 ms]")
                print(f"jump to a random decision point, state and whole frame ({d['n']}x): "
                      f"p50 {d['p50_ms']} ms, p95 {d['p95_ms']} ms, max {d['max_ms']} ms")
                print(f"search (enter) to the first match: {r['search_first_match_ms']} ms")
            if args.only in (None, "follow"):
                results["follow"] = r = asyncio.run(bench_follow(root, rate, seconds))
                k, lag = r["keys"], r["lag_behind_log"]
                print(f"follow {r['written']:,} events written at {r['rate_per_s']:.0f}/s for {r['seconds']:.0f} s "
                      f"(all shown: {r['shown'] == r['written']}): key p50 {k['p50_ms']} ms, p95 {k['p95_ms']} ms, "
                      f"max {k['max_ms']} ms over {k['n']} keys   [target p95 <= 100 ms, max <= 150 ms]; "
                      f"lag behind the log p50 {lag['p50_ms']} ms, max {lag['max_ms']} ms; "
                      f"the console used {100 * r['console_cpu_share']:.0f}% of a core")
            if args.only in (None, "memory"):
                results["memory"] = r = bench_memory(root, mem_calls)
                print(f"peak memory with {r['events']:,} events ({r['file_mb']} MB) open: {r['peak_rss_mb']} MB "
                      f"(Python + Textual alone: {r['import_only_rss_mb']} MB)   [target <= 300 MB]")
        finally:
            results["load"]["loadavg_after"] = load_average()
            loops.close()
    print(f"load average after: {results['load']['loadavg_after']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
