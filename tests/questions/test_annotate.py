"""questions.annotate: a reader shows, for any log, the points `detect` finds in it."""
from __future__ import annotations

from qevents import Log
from questions.annotate import DecisionAnnotator, carries_points, config_for
from questions.detectors import DetectorConfig, Detectors, detect
from questions.moments import fold
from synthetic_session import long_run_log as synthetic_log


def shown(events, annotator=None):
    a = annotator or DecisionAnnotator()
    out = []
    for ev in events:
        out.extend(a.feed(ev))
    return out


def transcript() -> Log:
    log = Log()
    log.add("session_start", task="t", agent="codex", **{"import": {"format": "codex"}})
    log.human("make it fast")
    log.bash("make", "error: x undefined", is_error=True)
    log.bash("make", "error: x undefined", is_error=True)
    log.bash("make", "error: x undefined", is_error=True)
    log.bash("make", "error: x undefined", is_error=True)
    log.text("Still failing. Should I try clang instead?")
    log.human("no, read the error")
    return log


def test_a_log_without_points_gets_exactly_the_points_detect_finds():
    log = transcript()
    out = shown(log.events)
    made = [e for e in out if e.get("derived")]
    assert [e for e in out if not e.get("derived")] == log.events  # nothing of the log lost or moved
    firsts = [e for e in made if "updates" not in e]
    assert [(e["kind"], e["about_seq"]) for e in firsts] == [(dp.kind, dp.about_seq) for dp in detect(log.events)]
    grew = [e for e in made if "updates" in e]
    assert grew and grew[-1]["count"] == 4 and grew[-1]["updates"] == firsts[1]["id"]


def test_a_point_raised_by_the_human_comes_before_the_message():
    out = shown(transcript().events)
    i = next(i for i, e in enumerate(out) if e.get("kind") == "agent_question")
    assert out[i + 1]["type"] == "human_message" and out[i + 1]["text"] == "no, read the error"
    assert out[i]["seq"] == out[i + 1]["seq"]  # named by the event that raised it


def test_a_runners_log_shows_its_own_points_and_nothing_else():
    log = Log()
    log.add("session_start", task="t", recorded_by="kernelseek run", config={"detectors": {"stall_evals": 2}})
    log.add("decision_point", kind="start", evidence="session started", about_seq=0)
    for g in (1.0, 1.0, 1.0):
        log.eval(g)
    assert shown(log.events) == log.events
    assert carries_points(log.events[0]) and not carries_points({"type": "session_start", "import": {}})
    assert not carries_points({"type": "assistant_text"})
    assert config_for(log.events[0]).stall_evals == 2  # detect re-runs with the runner's own settings
    assert config_for(log.events[0], DetectorConfig(stall_evals=7)).stall_evals == 7
    assert config_for({"type": "session_start", "config": {"detectors": {"nope": 1}}}).stall_evals == 5


def test_any_batching_gives_the_same_points():
    events = synthetic_log(2000, seed=4)
    events[0] = {**events[0], "import": {"format": "x"}}
    one = shown(events)
    a = DecisionAnnotator()
    chunked = []
    for i in range(0, len(events), 37):
        for ev in events[i:i + 37]:
            chunked.extend(a.feed(ev))
    assert chunked == one
    assert [e["id"] for e in one if e.get("derived") and "updates" not in e] == \
        [dp.id for dp in fold(Detectors().feed_many(events))]
