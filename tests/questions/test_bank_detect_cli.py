"""`kernelseek bank validate|list|show|suggest` and `kernelseek detect`, as a user runs them."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from console.cli import main
from qevents import Log, scen
from sessions.layout import create_session
from sessions.log import SessionWriter

KS = [sys.executable, "-m", "console"]


def ks(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*KS, *args], capture_output=True, text=True, timeout=60)


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def session(tmp_path):
    """A recorded session that ends in a limit claim, with one bank question already asked."""
    log = Log()
    log.start(task="attention-fwd", arch="sm90", capabilities=["other_implementation"], goal={"geomean": 1.3})
    log.eval(1.0, scenarios=scen(1.0, 1.0, pct=[30, 32]))
    log.human("Is that limit a property of the hardware or of your design?", source="bank",
              bank_id="limit-hw-or-design")
    log.eval(1.4, scenarios=scen(1.4, 1.4, pct=[40, 45]))
    log.text("We're at the memory bandwidth limit, so no further gains are possible.")
    sp = create_session(path=tmp_path / "s1")
    with SessionWriter(sp.events) as w:
        for ev in log.events:
            w.write_event(ev)
    return sp


def test_validate_the_bundled_bank(capsys):
    code, out, _ = run_main(capsys, "bank", "validate")
    assert code == 0 and out.startswith("ok: ")
    assert "core" in out and "limit_claim" in out and "memory_hierarchy" in out


def test_validate_a_broken_file_lists_every_problem_and_fails(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("items:\n  - id: a\n    text: \"Why?\"\n    triggers: [stal]\n    layers: [measurement]\n"
                   "  - id: a\n    text: \"How?\"\n    triggers: [loop]\n    layers: [speed]\n")
    r = ks("bank", "validate", str(bad))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines == [
        f"{bad}:4: item 'a': field 'triggers': unknown trigger 'stal' (did you mean 'stall'?) (known: start, stall, "
        "limit_claim, completion_claim, suspicious_win, correctness_break, regression, loop, agent_question, "
        "risky_action)",
        f"{bad}:6: item 'a': field 'id': duplicate id (first at line 2)",
        f"{bad}:9: item 'a': field 'layers': unknown layer 'speed' (known: algorithm, memory_hierarchy, "
        "instruction_mix, scheduling, launch, measurement, correctness, toolchain)",
    ]
    assert "3 problem(s)" in r.stderr
    j = json.loads(ks("bank", "validate", str(bad), "--json").stdout)
    assert j["ok"] is False and [p["line"] for p in j["problems"]] == [4, 6, 9]


def test_list_filters(capsys):
    code, out, _ = run_main(capsys, "bank", "list", "--trigger", "loop", "--arch", "sm100", "--json")
    items = json.loads(out)
    assert code == 0 and items and all("loop" in it["triggers"] for it in items)
    assert any(it["set"] == "blackwell" for it in items) and not any(it["set"] == "hopper" for it in items)
    code, out, err = run_main(capsys, "bank", "list", "--layer", "launch")
    assert code == 0 and "of" in err and len(out.splitlines()) >= 8


def test_show_and_unknown_id(capsys):
    code, out, _ = run_main(capsys, "bank", "show", "win-noise")
    assert code == 0 and out.splitlines()[0] == "Is that win noise? Run it again and show me the spread."
    assert "suspicious_win" in out and "core.yaml:" in out
    r = ks("bank", "show", "win-nois")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("kernelseek bank: error: no bank item 'win-nois' (did you mean win-noise")
    assert len(r.stderr.strip().splitlines()) == 1


def test_suggest_at_the_latest_decision_point(capsys, session):
    code, out, _ = run_main(capsys, "bank", "suggest", str(session.root))
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("limit_claim at seq 4: We're at the memory bandwidth limit")
    assert "45% of measured peak" in lines[0]
    assert lines[1] == "  arch sm90; capabilities other_implementation"
    numbered = [ln for ln in lines if ln.startswith("  ") and ln.strip()[0].isdigit()]
    assert len(numbered) == 9 and numbered[0].startswith("  1. ")
    assert not any("limit-hw-or-design" in ln for ln in numbered)  # asked before: it moves to the end
    code, out, _ = run_main(capsys, "bank", "suggest", str(session.root), "-n", "100")
    assert out.rstrip().splitlines()[-1].endswith("[limit-hw-or-design]  (asked)")
    assert any("[other-" in ln for ln in numbered[:4])  # an upstream kernel exists: compare with it
    code, out, _ = run_main(capsys, "bank", "suggest", str(session.events), "--kind", "stall", "--json", "-n", "3")
    doc = json.loads(out)
    assert doc["decision_point"]["kind"] == "stall" and len(doc["suggestions"]) == 3
    assert all(not s["asked"] for s in doc["suggestions"])


def test_detect_a_session(capsys, session):
    code, out, _ = run_main(capsys, "detect", str(session.root), "--json", "--suggest", "2")
    doc = json.loads(out)
    assert code == 0 and doc["format"] == "session" and doc["events"] == 5
    assert doc["counts"]["start"] == 1 and doc["counts"]["limit_claim"] == 1 and doc["counts"]["suspicious_win"] == 1
    limit = [d for d in doc["decision_points"] if d["kind"] == "limit_claim"][0]
    assert limit["about_seq"] == 4 and len(limit["suggestions"]) == 2
    code, out, _ = run_main(capsys, "detect", str(session.events), "--kind", "suspicious_win")
    lines = out.splitlines()
    assert lines[0].endswith("5 events, 1 decision points: suspicious_win 1")
    assert lines[1].split()[:3] == ["3", "+0:15", "suspicious_win"]


def test_detect_with_knobs(tmp_path, capsys, session):
    cfg = tmp_path / "knobs.yaml"
    cfg.write_text("suspicious_win: {geomean_jump: 1.5, scenario_jump: 2.0}\n")
    code, out, _ = run_main(capsys, "detect", str(session.root), "--config", str(cfg), "--json")
    assert code == 0 and json.loads(out)["counts"]["suspicious_win"] == 0
    cfg.write_text("stall: {evalz: 3}\n")
    r = ks("detect", str(session.root), "--config", str(cfg))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "unknown detector knob 'stall_evalz' (did you mean 'stall_evals'?)" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["detect", "/nonexistent/session"], "no session '/nonexistent/session'"),
    (["detect", "--kind", "stalled", "x"], "unknown decision-point kind 'stalled'"),
    (["bank", "suggest", "/nonexistent"], "no session '/nonexistent'"),
    (["bank", "list", "--bank", "/nonexistent.yaml"], "no such file"),
])
def test_user_errors_are_one_line(args, message):
    r = ks(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr


def test_detect_a_file_that_is_no_transcript(tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("just some notes\nnothing to see\n")
    r = ks("detect", str(junk))
    assert r.returncode == 2 and "Traceback" not in r.stderr and str(junk) in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
