"""The span-indexed store: events found again by where their line lies in events.jsonl."""
from __future__ import annotations

import json

from console.source import SessionSource
from console.store import FileEventStore, IndexedLogReader, MemoryEventStore, searchable
from synthetic_session import synthetic_events, write_events
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


def test_long_tool_outputs_are_skimmed_not_parsed_and_come_back_whole(tmp_path):
    """Opening parses what rows show: a long tool output is left out of the parsed event (its
    size noted), and the store gives the whole event back. Outputs that try to fool the skimmer
    (escaped quotes, a backslash before the closing quote, the key itself in the text, non-ASCII)
    come back exactly."""
    path = tmp_path / "events.jsonl"
    tricky = [
        'say "hi" ' * 300,
        "C:\\\\path\\\\ends with a backslash\\\\" * 80 + "\\",
        'x "output":"not the key" ' * 100,
        "ünïcödé ✓ " * 300,
        '"' * 1000,
        '\\", ' * 200,  # escaped quotes followed by commas, more than the skimmer looks past
        "short",
    ]
    events = [{"v": 1, "seq": i, "t": 1.0 + i, "type": "tool_result", "id": f"c{i}", "output": out,
               "is_error": i == 1, "duration_s": 0.5} for i, out in enumerate(tricky)]
    write_events(path, events)
    reader = IndexedLogReader(path)
    read = reader.read().events
    assert [e["seq"] for e in read] == list(range(len(tricky)))
    assert [bool(e.get("output_skimmed")) for e in read] == [True] * 5 + [False, False]
    assert all(e["output"] == "" for e in read[:5]) and read[5]["output"] == tricky[5]
    assert read[1]["is_error"] is True and read[0]["duration_s"] == 0.5
    store = FileEventStore(path)
    store.add_spans(reader.span_start, reader.span_len)
    assert [store.get(i) for i in range(len(events))] == events
    assert store.matching("not the key", 0, len(events), 10) == [2]


def test_a_session_opened_in_the_console_folds_skimmed_outputs_into_the_same_rows(tmp_path):
    from console.model import SessionModel

    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    events = list(synthetic_events(60, output_bytes=(2000, 20000)))
    write_events(path, events)
    source = SessionSource(SessionPaths(path.parent))
    skimmed = SessionModel(source.store)
    for batch in source.backlog():
        assert all(len(e["output"]) < 1000 for e in batch.events if e["type"] == "tool_result")
        source.accept(batch)
        skimmed.add(batch.events)
    whole = SessionModel()
    whole.store.extend(events)
    whole.add(events)
    assert [(r.kind, r.title, r.status, r.note) for r in skimmed.rows] == \
        [(r.kind, r.title, r.status, r.note) for r in whole.rows]
    big = next(e for e in events if e["type"] == "tool_result" and len(e["output"]) > 2000)
    assert source.store.get(events.index(big)) == big


def test_a_line_not_in_the_compact_form_is_parsed_whole_not_misskimmed(tmp_path):
    """The skimmer's end of an output is an unescaped quote followed by `,` or `}` (the compact
    form our writer uses): in a line with a space before its commas that quote is followed by a
    space, and the line is parsed whole (its output read exactly), never cut at a quote that only
    looks like the end."""
    path = tmp_path / "events.jsonl"
    out = 'a "quoted" word, then more ' * 100
    events = [{"v": 1, "seq": 0, "t": 1.0, "type": "tool_result", "id": "c0", "output": out, "is_error": False},
              {"v": 1, "seq": 1, "t": 2.0, "type": "tool_result", "id": "c1", "output": out + '"', "is_error": True}]
    path.write_text("".join(json.dumps(e, separators=(" ,", ":")) + "\n" for e in events))
    read = IndexedLogReader(path).read().events
    assert read == events and not any("output_skimmed" in e for e in read)
