"""load_transcript's format detection, import_to_session, and `kernelseek import`."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sessions.importers import TranscriptError, detect_format, import_to_session, load_transcript
from sessions.layout import create_session
from sessions.log import SessionWriter, read_events

CLAUDE = [
    {"parentUuid": None, "isSidechain": False, "type": "user", "uuid": "u1", "sessionId": "s",
     "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "speed up the kernel"}},
    {"parentUuid": "u1", "isSidechain": False, "type": "assistant", "uuid": "a1", "sessionId": "s",
     "timestamp": "2026-01-01T00:00:05Z",
     "message": {"id": "m1", "role": "assistant", "model": "claude-opus-4-6",
                 "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "./bench"}}]}},
    {"parentUuid": "a1", "isSidechain": False, "type": "user", "uuid": "r1", "sessionId": "s",
     "timestamp": "2026-01-01T00:00:09Z",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": "geomean speedup: 1.31x"}]}},
]
CODEX = [
    {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x", "cwd": "/w"}},
    {"timestamp": "2026-01-01T00:00:01Z", "type": "event_msg",
     "payload": {"type": "user_message", "message": "hi"}},
]


def jsonl(path, records, tail=""):
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)
    return path


def ks(*args):
    return subprocess.run([sys.executable, "-m", "console", *args], capture_output=True, text=True, timeout=60)


def test_the_format_is_told_from_content_not_name(tmp_path):
    a = jsonl(tmp_path / "rollout-codex-looking-name.jsonl", CLAUDE)
    b = jsonl(tmp_path / "claude.jsonl", CODEX)
    sp = create_session(path=tmp_path / "ours")
    with SessionWriter(sp.events) as w:
        w.append("session_start", task="softmax")
        w.append("human_message", text="why?", source="free")
    assert (detect_format(a), detect_format(b), detect_format(sp.events)) == ("claude-code", "codex", "kernelseek")
    ours = load_transcript(sp.root)  # a session directory works too
    assert ours.format == "kernelseek" and [e["type"] for e in ours.events] == ["session_start", "human_message"]
    assert load_transcript(a).events[0]["agent"] == "claude-code"


def test_a_byte_order_mark_and_crlf_line_ends_are_tolerated(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(r) + "\r\n" for r in CLAUDE).encode())
    events, stats = load_transcript(p)
    assert stats.format == "claude-code" and not stats.malformed
    assert [e["type"] for e in events if e["type"] in ("human_message", "tool_call", "tool_result")] == \
        ["human_message", "tool_call", "tool_result"]


def test_a_torn_last_line_of_our_own_log_is_not_lost_data(tmp_path):
    sp = create_session(path=tmp_path / "s")
    with SessionWriter(sp.events) as w:
        w.append("session_start", task="t")
    with open(sp.events, "a") as f:
        f.write('{"v": 1, "seq": 1, "t": 1.0, "type": "assistant_te')
    result = load_transcript(sp.events)
    assert len(result.events) == 1 and "unfinished" in result.stats.notes[0]


@pytest.mark.parametrize("content, why", [
    ("", "empty"),
    ("hello\n", "line 1 is not JSON"),
    ('{"name": "x"}\n', "line 1 is a JSON object of no known transcript kind"),
])
def test_files_of_no_known_format_are_one_clear_error(tmp_path, content, why):
    p = tmp_path / "x.jsonl"
    p.write_text(content)
    with pytest.raises(TranscriptError) as exc:
        load_transcript(p)
    assert str(p) in str(exc.value) and why in str(exc.value) and exc.value.exit_code == 2


def test_insisting_on_the_wrong_format_is_an_error(tmp_path):
    p = jsonl(tmp_path / "c.jsonl", CLAUDE)
    with pytest.raises(TranscriptError, match="looks like a Claude Code session, not a Codex rollout"):
        load_transcript(p, "codex")
    with pytest.raises(TranscriptError, match="no such file"):
        load_transcript(tmp_path / "missing.jsonl")


def test_import_to_session_writes_a_session_the_reader_accepts(tmp_path):
    src = jsonl(tmp_path / "c.jsonl", CLAUDE)
    result = import_to_session("claude-code", src, tmp_path / "sess")
    read = read_events(tmp_path / "sess" / "events.jsonl")
    assert read.events == result.events and not read.malformed
    types = [e["type"] for e in read.events]
    assert types == ["session_start", "human_message", "tool_call", "tool_result", "eval_result", "session_end"]
    assert read.events[0]["source"] == str(src)
    stats = json.loads((tmp_path / "sess" / "import.json").read_text())
    assert stats["format"] == "claude-code" and stats["events"]["eval_result"] == 1
    with pytest.raises(TranscriptError, match="already holds a session"):
        import_to_session("claude-code", src, tmp_path / "sess")


def test_kernelseek_import_command(tmp_path):
    src = jsonl(tmp_path / "c.jsonl", CLAUDE, tail='{"type": "user", "mess\n')
    r = ks("import", "claude-code", str(src), "--out", str(tmp_path / "s1"))
    assert r.returncode == 0, r.stderr
    assert "1 human messages, 1 tool calls, 1 results, 1 inferred evaluations" in r.stdout
    assert f"{src}:4: not JSON" in r.stderr  # the malformed line is named, the rest imported
    r = ks("import", "claude-code", str(src), "--out", str(tmp_path / "s2"), "--no-infer", "--json")
    assert r.returncode == 0 and "eval_result" not in json.loads(r.stdout)["events"]


@pytest.mark.parametrize("args, message", [
    (["codex", "{claude}"], "looks like a Claude Code session, not a Codex rollout"),
    (["codex", "{missing}"], "no such file"),
    (["claude-code", "{garbage}"], "line 1 is not JSON"),
])
def test_kernelseek_import_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    files = {"claude": jsonl(tmp_path / "c.jsonl", CLAUDE), "missing": tmp_path / "nope.jsonl",
             "garbage": tmp_path / "g.jsonl"}
    files["garbage"].write_text("not json at all\n")
    argv = ["import", args[0], args[1].format(**files), "--out", str(tmp_path / "out")]
    r = ks(*argv)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelseek import: error: ") and message in lines[0]
    assert args[1].format(**files) in lines[0]
    assert not (tmp_path / "out").exists()
