"""`kernelseek compare` on a launch with two arms, against a re-evaluation done by hand.

The scripted model plays the paper's ablation in small: it vectorises the kernel's score loop
only when a steerer's question reaches it, so the autopilot arm (the bank asks at the start
decision point) ends with a faster kernel than the arm without it. Four sessions of attention-cpu
(with three smaller scenarios, so that five full sweeps fit a test), `--arms autopilot,none`, as
one Slurm job array when a Slurm can be started here (else four local runners); then compare
re-evaluates every final kernel with the full sweep.
"""
from __future__ import annotations

import json
import os
import statistics
import time
import xml.etree.ElementTree as ET

import pytest

from fake_anthropic import FakeAnthropic, Reply, text, tool
from fleet_helpers import (STEERER, cli_env, current_job, events, kernelseek, of_type, small_attention_task,
                           wait_until, write_config)

# on the worker that runs test_slurm.py (pytest-xdist `loadgroup`): the session's Slurm is started once
pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("slurm")]

# the vectorising edit of the bundled example's story (tools/record_example.py), on attention-cpu's seed
DOT = "                for (int d = 0; d < D; ++d) dot += q[d] * k[(long)j * D + d];"
DOT_SIMD = "#pragma omp simd reduction(+:dot)\n" + DOT


def steered_by_questions(req) -> Reply:
    """Reads the kernel; vectorises it if (and only if) the steerer asked something; says done."""
    said = json.dumps(req.messages)
    if req.step == 0:
        return Reply(text("Reading the candidate first."), tool("read_file", path="candidate.c"))
    if STEERER in said and "omp simd reduction" not in said:
        return Reply(text("Measuring as asked: the score loop is one serial chain of adds; an OpenMP simd "
                          "reduction lets it use vector lanes."),
                     tool("edit_file", path="candidate.c", old_string=DOT, new_string=DOT_SIMD))
    return Reply(text("This is as fast as this kernel gets. Done."))


@pytest.fixture(scope="module")
def slurm_or_none(request):
    try:
        return request.getfixturevalue("slurm_cluster")
    except pytest.skip.Exception:
        return None


def test_compare_prints_the_arms_and_their_difference_and_matches_a_reevaluation_by_hand(
        slurm_or_none, tmp_path, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    cfg = write_config(home / "agent.yaml", max_turns=3, grace_s=0)  # an A/B run nobody watches
    task = small_attention_task(tmp_path)
    on = ["--on", "slurm", "--gpus", "1"] if slurm_or_none is not None else ["--on", "local"]
    with FakeAnthropic(handler=steered_by_questions) as server:
        # one OpenMP thread: the timing of a two-thread kernel on a shared two-core box is mostly noise
        env = cli_env(server, home, **(slurm_or_none.env if slurm_or_none else {}),
                      KERNELSEEK_STEERING_LOG="off", OMP_NUM_THREADS="1")
        r = kernelseek(["run", str(task), *on, "--count", "4", "--arms", "autopilot,none", "--config", str(cfg)], env)
        assert r.returncode == 0, r.stderr
        sessions = sorted((home / "sessions").iterdir())
        wait_until(lambda: all(of_type(events(s), "session_end") for s in sessions), timeout=120,
                   what="every session ending")
    if slurm_or_none is not None:  # one GPU each, from the node's four
        assert sorted(events(s)[0]["place"]["gpus"] for s in sessions) == ["0", "1", "2", "3"]
    ref = current_job(sessions[0]).split("_")[0] if slurm_or_none else sessions[0].name[:-2]

    out = tmp_path / "cmp"
    report = tmp_path / "report" / "arms.md"
    t0 = time.monotonic()
    r = kernelseek(["compare", "--arms-of", ref, "--budget", "0.05", "--pairs", "8", "--out", str(out),
                    "--report", str(report)], {**env, "COLUMNS": "160"}, timeout=240)
    print(f"compare took {time.monotonic() - t0:.1f} s")
    assert r.returncode == 0, r.stderr
    assert "median final geomean" in r.stdout and "autopilot − none: median final geomean" in r.stdout
    c = json.loads((out / "compare.json").read_text())

    arms = {a["arm"]: a for a in c["arms"]}
    assert [a["arm"] for a in c["arms"]] == ["none", "autopilot"]  # the baseline first
    assert arms["none"]["sessions"] == arms["autopilot"]["sessions"] == 2
    assert arms["autopilot"]["questions_autopilot"] >= 2 and arms["none"]["questions_autopilot"] == 0
    assert all(a["tokens"] > 0 and a["cost_usd"] > 0 for a in c["arms"])
    # the per-arm numbers are the medians of the per-session re-evaluations
    for arm, a in arms.items():
        finals = [s["final"] for s in c["sessions"] if s["arm"] == arm]
        est = a["median_final_geomean"]
        assert est["value"] == pytest.approx(statistics.median(finals))
        assert est["lo"] <= est["value"] <= est["hi"]
    (diff,) = c["differences"]
    assert diff["arm"] == "autopilot" and diff["baseline"] == "none"
    d = diff["median_difference"]
    assert d["value"] == pytest.approx(arms["autopilot"]["median_final_geomean"]["value"]
                                       - arms["none"]["median_final_geomean"]["value"])
    assert d["lo"] > 0 and diff["verdict"] == "higher"  # the questions moved the kernel

    # by hand: the steered session's final kernel, evaluated again with the same inputs
    steered = next(s for s in c["sessions"] if s["arm"] == "autopilot")
    saved = json.loads(open(steered["report"]).read())
    assert saved["geomean"] == pytest.approx(steered["geomean"], rel=1e-3) and saved["all_correct"]
    from evaluator import evaluate_isolated

    by_hand = evaluate_isolated(task, os.path.join(steered["path"], "workspace", "candidate.c"),
                                time_budget_s=0.05, min_pairs=8, seed=steered["eval_seed"]).summary()
    assert by_hand["all_correct"] == steered["all_correct"] and by_hand["passed"] == steered["passed"]
    assert by_hand["failing"] == []
    # the same kernel timed again: both clearly faster than the seed, and within the noise of a
    # shared two-core box of each other (the correctness above is exact)
    assert by_hand["geomean"] > 1.3 and steered["geomean"] > 1.3
    assert 0.4 < by_hand["geomean"] / steered["geomean"] < 2.5
    assert by_hand["candidate_sha256"] == steered["candidate_sha256"]

    md = report.read_text()
    assert "| arm | sessions | goal met |" in md and "![best geomean over time per arm](arms.svg)" in md
    svg = ET.fromstring(report.with_suffix(".svg").read_text())
    lines = [e for e in svg.iter() if e.tag.endswith("polyline")]
    assert len(lines) >= 2  # a line per session that has counted evaluations
