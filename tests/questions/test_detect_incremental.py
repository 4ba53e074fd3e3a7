"""Live (one event at a time, as the runner does) and offline (`detect` over the whole log) agree."""
from __future__ import annotations

import random
import threading
import time

from synthetic_session import long_run_log as synthetic_log
from questions.detectors import Detectors, detect
from questions.loader import load_bank
from questions.moments import fold
from questions.ranking import RankContext, rank, suggestions
from sessions.log import LogReader, SessionWriter, read_events


def as_dicts(points):
    return [dp.to_dict() for dp in points]


def test_the_log_a_live_runner_writes_gives_the_same_points_offline(tmp_path):
    """The runner feeds every event, writes each decision point (with suggestions) into the same
    log, and sends autopilot questions; re-running the detectors over that log finds the same."""
    bank = load_bank()
    source = synthetic_log(4000, seed=3)
    path = tmp_path / "events.jsonl"
    live = Detectors()
    ctx = RankContext()
    live_points = []
    with SessionWriter(path) as w:
        for ev in source:
            fields = {k: v for k, v in ev.items() if k not in ("v", "seq", "t", "type")}
            pending = [w.append(ev["type"], **fields)]
            while pending:
                written = pending.pop(0)
                ctx.add(written)
                for dp in live.feed(written):
                    live_points.append(dp)
                    w.append("decision_point", **dp.to_event_fields(), suggestions=suggestions(dp, bank, ctx))
                    if dp.kind == "stall" and dp.updates is None:  # autopilot answers new stalls
                        top = [it for it in rank(dp, bank, ctx, include_asked=False)][0]
                        pending.append(w.append("human_message", text=top.text, source="autopilot",
                                                bank_id=top.id))
    kinds = {dp.kind for dp in live_points}
    assert {"start", "stall", "regression", "loop", "suspicious_win", "limit_claim"} <= kinds
    logged = read_events(path).events
    assert sum(1 for e in logged if e["type"] == "decision_point") == len(live_points)
    assert sum(1 for e in logged if e.get("source") == "autopilot") == sum(
        1 for dp in live_points if dp.kind == "stall" and dp.updates is None)
    assert as_dicts(detect(logged)) == as_dicts(fold(live_points))
    assert any(dp.updates for dp in live_points)  # loops and stalls grew in place
    for dp, ev in zip(live_points, (e for e in logged if e["type"] == "decision_point")):
        assert ev["about_seq"] == dp.about_seq and ev["kind"] == dp.kind and ev["suggestions"]
        assert ev["id"] == dp.id and ev.get("updates") == dp.updates


def test_following_a_log_while_it_is_written(tmp_path):
    """A reader that follows the file as a writer appends (torn lines and all) and feeds each new
    event gets what a batch run over the finished file gets."""
    events = synthetic_log(3000, seed=11)
    path = tmp_path / "events.jsonl"
    done = threading.Event()

    def writer():
        with SessionWriter(path, fsync_types=frozenset()) as w:
            for i, ev in enumerate(events):
                w.write_event(ev)
                if i % 97 == 0:
                    time.sleep(0.001)
        done.set()

    reader = LogReader(path)
    follower = Detectors()
    followed = []
    seen = 0
    th = threading.Thread(target=writer)
    th.start()
    while True:
        finished = done.is_set()
        got = reader.read()
        for ev in got.events:
            seen += 1
            followed.extend(follower.feed(ev))
        if finished and not got.events:
            break
        time.sleep(0.0005)
    th.join()
    assert seen == len(events) and reader.malformed == []
    assert followed and as_dicts(fold(followed)) == as_dicts(detect(read_events(path).events))


def test_no_look_ahead_and_chunking_does_not_matter():
    events = synthetic_log(3000, seed=5)
    stream = Detectors().feed_many(events)  # new points and updates, as they arise
    full = fold(stream)
    assert as_dicts(full) == as_dicts(detect(events))
    rng = random.Random(1)
    for cut in sorted(rng.sample(range(1, len(events)), 25)):
        prefix = detect(events[:cut])
        assert as_dicts(prefix) == as_dicts(fold([dp for dp in stream if dp.at_seq < cut]))
    det = Detectors()
    chunked = []
    i = 0
    while i < len(events):
        n = rng.randint(1, 200)
        for ev in events[i:i + n]:
            chunked.extend(det.feed(ev))
        i += n
    assert as_dicts(chunked) == as_dicts(stream)


def test_every_point_names_its_event_and_evidence():
    events = synthetic_log(5000, seed=9)
    by_seq = {ev["seq"]: ev for ev in events}
    points = detect(events)
    assert len({dp.kind for dp in points}) >= 6
    for dp in points:
        assert dp.evidence.strip()
        assert dp.about_seq in by_seq and dp.at_seq in by_seq
        assert dp.about_seq <= dp.at_seq
        assert 0.0 <= dp.strength <= 1.0
