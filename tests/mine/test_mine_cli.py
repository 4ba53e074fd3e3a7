"""`kernelseek mine` as a user runs it: files written, a summary, one-line errors."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from mine_corpus import generate
from mine_sessions import Log
from console.cli import main
from questions.loader import BANK_DIR, load_bank

KS = [sys.executable, "-m", "console"]


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def steering(tmp_path_factory):
    corpus = generate(41, n_messages=700, n_sessions=30)
    return corpus.write_steering_log(tmp_path_factory.mktemp("cli") / "steering.jsonl")


def test_mine_writes_a_bank_and_a_report(steering, tmp_path, capsys):
    out, report = tmp_path / "mined.yaml", tmp_path / "report.md"
    code, stdout, err = run_main(capsys, "mine", str(steering), "--out", str(out), "--report", str(report))
    assert code == 0, err
    assert stdout.startswith("mined 700 human messages from 1 log(s), 30 session(s): ")
    assert "question cluster(s)" in stdout and f"report: {report}" in stdout
    bank = load_bank([out])
    assert len(bank) > 5
    text = report.read_text()
    for heading in ("# Mined steering questions", "## Questions, directives, information",
                    "## Question clusters ranked by the gains that followed",
                    "## Clusters that match existing bank items"):
        assert heading in text
    assert "| information |" in text and "Examples of **information**" in text


def test_json_summary(steering, tmp_path, capsys):
    code, stdout, _ = run_main(capsys, "mine", str(steering), "--out", str(tmp_path / "m.yaml"), "--json",
                               "--min-asked", "3")
    doc = json.loads(stdout)
    assert code == 0 and doc["messages"] == 700 and set(doc["labels"]) == {"question", "directive", "information",
                                                                          "other"}
    assert doc["new"] and all(c["text"] for c in doc["candidates"])
    asked = {c["id"]: c["stats"]["asked"] for c in doc["candidates"]}
    assert all(asked[i] >= 3 for i in doc["new"])


def test_merge_in_place_twice_adds_nothing_the_second_time(steering, tmp_path, capsys):
    bank = tmp_path / "core.yaml"
    shutil.copy(BANK_DIR / "core.yaml", bank)
    n0 = len(load_bank([bank]))
    code, first, err = run_main(capsys, "mine", str(steering), "--merge", str(bank), "--out", str(bank))
    assert code == 0, err
    n1 = len(load_bank([bank]))
    assert n1 > n0 and "item(s) updated" in first
    code, second, _ = run_main(capsys, "mine", str(steering), "--merge", str(bank), "--out", str(bank))
    assert code == 0 and len(load_bank([bank])) == n1
    assert ": 0 new candidate(s)" in second


def test_sessions_and_transcripts_mine_too(tmp_path, capsys):
    log = Log()
    log.start()
    log.eval(1.0)
    log.text("We're at the memory bandwidth limit; no further gains are possible.")
    log.human("Is that limit a property of the hardware or of your design?")
    log.eval(1.2)
    root = log.write(tmp_path / "s")
    code, stdout, err = run_main(capsys, "mine", str(root), "--out", str(tmp_path / "m.yaml"), "--json")
    doc = json.loads(stdout)
    assert code == 0 and doc["logs"][0]["format"] == "session"
    (c,) = doc["candidates"]
    assert c["stats"]["mean_gain"] == pytest.approx(0.2) and "limit_claim" in c["stats"]["kinds"]


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/run.jsonl"], "no such file, session directory or session name"),
    (["{log}", "--window", "0"], "--window must be at least 1"),
    (["{log}", "--merge", "/nonexistent/bank.yaml"], "no such bank file"),
    (["{log}", "--merge", "{bad}"], "not valid YAML"),
])
def test_errors_are_one_line(steering, tmp_path, args, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text("items:\n  - id: [unclosed\n")
    args = [a.format(log=steering, bad=bad) for a in args]
    r = subprocess.run([*KS, "mine", *args, "--out", str(tmp_path / "o.yaml")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("kernelseek mine: error: ") and message in r.stderr
    assert not (tmp_path / "o.yaml").exists()
