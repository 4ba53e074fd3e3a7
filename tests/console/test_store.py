"""The span-indexed store: events found again by where their line lies in events.jsonl."""
from __future__ import annotations

import json

from console.source import SessionSource
from console.store import FileEventStore, IndexedLogReader, MemoryEventStore, searchable
from console.synthetic import synthetic_events, write_events
from sessions.layout import SessionPaths


def _store_for(path) -> tuple[FileEventStore, list[dict]]:
    reader = IndexedLogReader(path)
    events = reader.read().events
    store = FileEventStore(path)
    store.add_spans(reader.span_start, reader.span_len)
    return store, events


def test_spans_find_every_event_even_around_malformed_and_blank_lines(tmp_path):
    path = tmp_path / "events.jsonl"
    good = [{"v": 1, "seq": i, "t": 1.0 + i, "type": "assistant_text", "text": f"é{i} ünïcode"} for i in range(5)]
    lines = [json.dumps(good[0], ensure_ascii=False), "not json", "", json.dumps(good[1], ensure_ascii=False),
             "[1, 2]", "   ", json.dumps(good[2], ensure_ascii=False), json.dumps(good[3])]
    path.write_text("\n".join(lines) + "\n" + json.dumps(good[4])[:20], encoding="utf-8")  # torn tail
    store, events = _store_for(path)
    assert [e["seq"] for e in events] == [0, 1, 2, 3]
    assert [store.get(i) for i in range(len(store))] == events
    with open(path, "a") as f:  # the torn line is finished: picked up with the right span
        f.write(json.dumps(good[4])[20:] + "\n")
    reader = IndexedLogReader(path)
    reader.read()
    store2 = FileEventStore(path)
    store2.add_spans(reader.span_start, reader.span_len)
    assert store2.get(4)["seq"] == 4 and len(store2) == 5


def test_slices_read_the_same_events_as_one_read(tmp_path):
    path = tmp_path / "events.jsonl"
    write_events(path, synthetic_events(120))
    whole = IndexedLogReader(path).read().events
    reader = IndexedLogReader(path)
    sliced = []
    while True:
        got = reader.read(max_bytes=3000).events
        if not got:
            break
        sliced.extend(got)
    assert sliced == whole
    store = FileEventStore(path)
    store.add_spans(reader.span_start, reader.span_len)
    assert store.get(len(whole) - 1) == whole[-1]


def test_search_forward_and_backward_matches_the_memory_store(tmp_path):
    path = tmp_path / "events.jsonl"
    events = list(synthetic_events(200))
    write_events(path, events)
    store, _ = _store_for(path)
    mem = MemoryEventStore(events)
    for q, start in [("softmax rescale", 0), ("SOFTMAX", 300), ("perf stat", 10), ("b4-h32", 0),
                     ("no such text anywhere", 0), ('"quick"', 0), ("ü", 0)]:
        for direction, s in ((1, start), (-1, len(events) - 1 - start)):
            got = store.search(q, s, direction)
            assert got == mem.search(q, s, direction), (q, direction)
            if got is not None:
                assert q.casefold() in searchable(events[got])
    # keys and bookkeeping are not content
    assert store.search("tool_call", 0) is None and store.search("eval_result", 0) is None


def test_session_source_hands_over_batches_with_their_spans(tmp_path):
    sp = SessionPaths(tmp_path)
    events = list(synthetic_events(300))
    write_events(sp.events, events)
    src = SessionSource(sp)
    import console.source as source_mod

    old = source_mod.SLICE_BYTES
    source_mod.SLICE_BYTES = 10_000
    try:
        batches = list(src.backlog())
    finally:
        source_mod.SLICE_BYTES = old
    assert len(batches) > 3
    for b in batches:
        src.accept(b)
    assert sum(len(b.events) for b in batches) == len(events) == len(src.store)
    assert src.store.get(len(events) - 1) == events[-1]
