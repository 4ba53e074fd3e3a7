"""The labelled benchmark: how decision points are matched with hand labels, and the command.

The matching rules are the definitions in docs/questions.md ("The labelled benchmark"); each is
pinned on a small log written here. The real labels are checked for shape against the real
transcripts (every human message labelled, every label found) where the transcripts are present.
"""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import yaml

from console.cli import main as kernelseek
from qevents import Log
from questions.benchmark.labels_io import INTERVENTIONS, LabelsError, read_label_file, read_labels
from questions.benchmark.score import active_seconds, score_transcript, summarise
from questions.decision import DecisionPoint

LABELS = Path(__file__).resolve().parents[2] / "questions" / "benchmark" / "labels"
TRANSCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "data" / "transcripts"


def dp(kind, about, at=None):
    return DecisionPoint(kind, f"{kind} evidence", about, {}, 0.5, at if at is not None else about)


def conversation() -> tuple[Log, dict]:
    """start; human 1; agent works; human 2 (interrupt) + 3 (message); agent; human 4."""
    log = Log()
    log.add("session_start", task="t")
    h1 = log.human("make it fast")
    for i in range(25):
        log.bash(f"step {i}", "ok")
    log.human("[Request interrupted by user]", kind="interrupt")
    h3 = log.human("no, look in bench/ instead")
    log.text("Done. Want me to commit?")
    h4 = log.human("yes")
    return log, {"h1": h1, "h3": h3, "h4": h4}


def labels_for(log: Log, acts: dict[int, str]):
    from questions.benchmark.labels_io import Label

    return [Label(ev["seq"], acts.get(ev["seq"], "other"), ev["text"][:20]) for ev in log.events
            if ev["type"] == "human_message"]


def test_a_point_counts_when_it_comes_just_before_the_moment_the_human_acted():
    log, h = conversation()
    interrupt = h["h3"]["seq"] - 1
    last_call = h["h3"]["seq"] - 3
    labels = labels_for(log, {h["h3"]["seq"]: "redirect", h["h4"]["seq"]: "answer"})
    points = [dp("start", 0), dp("risky_action", last_call), dp("agent_question", h["h4"]["seq"] - 1, h["h4"]["seq"])]
    s = score_transcript("t", "tune", log.events, points, labels)
    redirect = next(m for m in s.moments if m.label.act == "redirect")
    assert redirect.seq == interrupt  # the human acted at the interrupt, not at the message
    assert redirect.matched == [0] and s.right == [True, True]  # the turn end raised by "yes" is about the text before


def test_too_early_after_the_human_or_fired_too_late_does_not_count():
    log, h = conversation()
    labels = labels_for(log, {h["h3"]["seq"]: "redirect"})
    early = h["h1"]["seq"] + 2  # 20+ agent actions before the interrupt
    after = h["h3"]["seq"] + 1  # after the human acted
    s = score_transcript("t", "tune", log.events, [dp("loop", early), dp("loop", after)], labels)
    assert s.right == [False, False] and not s.moments[1].matched


def test_a_missed_moment_makes_an_alarm_there_right_without_counting_as_an_intervention():
    from questions.benchmark.labels_io import Label

    log, h = conversation()
    text = next(ev for ev in log.events if ev["type"] == "assistant_text")
    labels = labels_for(log, {}) + [Label(text["seq"], "missed", "Done. Want me")]
    s = score_transcript("t", "tune", log.events, [dp("completion_claim", text["seq"])], labels)
    rows = summarise([s])
    assert s.right == [True] and rows["all"].interventions == 0 and rows["all"].caught == 1


def test_every_human_message_must_carry_a_label_and_every_label_must_be_found():
    log, h = conversation()
    labels = labels_for(log, {})
    with pytest.raises(LabelsError, match="carry no label"):
        score_transcript("t", "tune", log.events, [], labels[:-1])
    from questions.benchmark.labels_io import Label
    bad = labels[:-1] + [Label(h["h4"]["seq"], "answer", "something else")]
    with pytest.raises(LabelsError, match="begins with"):
        score_transcript("t", "tune", log.events, [], bad)


def test_a_label_found_again_when_the_numbering_moved():
    from questions.benchmark.labels_io import Label

    log, h = conversation()
    labels = labels_for(log, {})
    moved = [Label(lab.seq + 2, lab.act, lab.text) if lab.seq == h["h4"]["seq"] else lab for lab in labels]
    s = score_transcript("t", "tune", log.events, [], moved)
    assert {m.seq for m in s.moments} >= {h["h4"]["seq"]}


def test_active_time_caps_the_pauses():
    events = [{"t": 0.0}, {"t": 60.0}, {"t": 3660.0}, {"t": 3720.0}]
    assert active_seconds(events) == 60 + 300 + 60


def test_figures_per_kind_count_merged_points_for_each_kind():
    log, h = conversation()
    labels = labels_for(log, {h["h3"]["seq"]: "redirect", h["h4"]["seq"]: "answer"})
    merged = dp("risky_action", h["h3"]["seq"] - 3)
    merged.reasons = [{"kind": "risky_action", "evidence": "x"}, {"kind": "loop", "evidence": "y"}]
    s = score_transcript("t", "tune", log.events, [merged], labels)
    rows = summarise([s])
    assert rows["all"].alarms == 1 and rows["risky_action"].alarms == rows["loop"].alarms == 1
    assert rows["loop"].recalled == 1 and rows["all"].recall == 1.0 and rows["all"].precision == 1.0


def test_labels_files_are_checked_line_by_line(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text("transcript: a/b.jsonl\npart: tune\nmoments:\n- {seq: 1, act: other, text: hi}\n"
                 "- {seq: 2, act: shout, text: hey}\n")
    with pytest.raises(LabelsError, match=r"x\.yaml:5: 'act' must be one of"):
        read_label_file(p)
    p.write_text("transcript: a/b.jsonl\npart: maybe\nmoments: []\n")
    with pytest.raises(LabelsError, match="'part' must be one of"):
        read_label_file(p)


def test_the_command_scores_a_labels_folder(tmp_path):
    """kernelseek detect --score over a folder naming a log under --transcripts."""
    log, h = conversation()
    root = tmp_path / "transcripts"
    (root / "own").mkdir(parents=True)
    with open(root / "own" / "events.jsonl", "w") as f:
        for ev in log.events:
            f.write(json.dumps(ev) + "\n")
    labels = tmp_path / "labels"
    labels.mkdir()
    moments = [{"seq": ev["seq"], "act": {h["h3"]["seq"]: "redirect", h["h4"]["seq"]: "answer"}.get(ev["seq"], "other"),
                "text": ev["text"][:15]} for ev in log.events if ev["type"] == "human_message"]
    (labels / "own.yaml").write_text(yaml.safe_dump({"transcript": "own/events.jsonl", "part": "score",
                                                     "moments": moments}))
    out = io.StringIO()
    with redirect_stdout(out):
        assert kernelseek(["detect", "--score", str(labels), "--transcripts", str(root), "--json"]) == 0
    doc = json.loads(out.getvalue())
    score = doc["parts"]["score"]["kinds"]["all"]
    assert score["interventions"] == 1 and score["answers"] == 1 and score["answered"] == 1
    out = io.StringIO()
    with redirect_stdout(out):
        assert kernelseek(["detect", "--score", str(labels), "--transcripts", str(root)]) == 0
    assert "part score (held out: scored only)" in out.getvalue()
    assert kernelseek(["detect", "--score", str(tmp_path / "none"), "--transcripts", str(root)]) == 2


@pytest.mark.skipif(not TRANSCRIPTS.is_dir(), reason=f"no transcripts at {TRANSCRIPTS}")
def test_the_shipped_labels_cover_every_human_message_of_every_transcript():
    from questions.benchmark.run import score_labels

    files = read_labels(LABELS)
    assert {f.part for f in files} == {"tune", "score"}
    assert {f.transcript for f in files} == {str(p.relative_to(TRANSCRIPTS)) for p in TRANSCRIPTS.glob("*/*.jsonl")}
    scores = score_labels(str(LABELS), transcripts=str(TRANSCRIPTS))  # raises on any unlabelled message
    for part in ("tune", "score"):
        rows = summarise([s for s in scores if s.part == part])
        assert rows["all"].interventions >= 60  # enough real interventions on each side to mean something
    assert all(lab.act in INTERVENTIONS + ("answer", "next", "other", "missed") for f in files for lab in f.labels)


def test_an_alarm_budget_holds_back_what_finds_the_bucket_empty():
    # benchmarks/alarm_budget.py: a token bucket of `burst` alarms refilled at `rate` per active hour
    from alarm_budget import active_clock, budgeted

    events = [{"seq": i, "t": 60.0 * i} for i in range(121)]  # two active hours, one event a minute
    events[50]["t"] = events[49]["t"] + 3600  # an hour's pause counts as five minutes
    clock = active_clock(events)
    assert clock[49] == 49 * 60 and clock[50] == 49 * 60 + 300
    points = [dp("start", 0)] + [dp("agent_question", s) for s in (1, 2, 3, 25, 30, 32, 90)]
    kept = budgeted(points, clock, rate=2.0, burst=1.0)  # one alarm, then one per 30 active minutes
    assert [p.about_seq for p in kept] == [0, 1, 32, 90]  # (at 30: 29 minutes after the one at 1)
    assert [p.about_seq for p in budgeted(points, clock, rate=2.0, burst=3.0)] == [0, 1, 2, 3, 32, 90]
    assert budgeted(points, clock, rate=1e9, burst=1e9) == points
