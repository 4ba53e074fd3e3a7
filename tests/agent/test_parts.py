"""The runner's parts on their own: tools, control lines, secrets, config, the conversation fold."""
from __future__ import annotations

import os
import threading
import time

import pytest

from agent.config import ConfigError, Price, cost_usd, load_config, price_for
from agent.control import parse_control, raise_goal, render_goal
from agent.conversation import Conversation, compact
from agent.secrets import REDACTED, Redactor, is_secret_name, scrubbed_env
from agent.shell import cap_text, run_shell
from agent.tools import ToolInputError, edit_file, read_file, workspace_path, write_file
from synthetic_session import event as ev


# -- file tools ---------------------------------------------------------------------------------

def test_file_tools_stay_inside_the_workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("outside")
    os.symlink(tmp_path / "secret.txt", ws / "link")
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "link", "/etc/passwd"):
        with pytest.raises(ToolInputError, match="outside the workspace"):
            read_file(ws, {"path": path}, 1000)
    with pytest.raises(ToolInputError, match="outside the workspace"):
        write_file(ws, {"path": "../x.c", "content": "int x;"})
    assert workspace_path(ws, "sub/../a.c") == (ws / "a.c").resolve()


def test_edit_file_says_clearly_when_the_string_is_absent_or_not_unique(tmp_path):
    f = tmp_path / "k.c"
    f.write_text("int a = 1;\nint b = 1;\nint c = 2;\n")
    with pytest.raises(ToolInputError, match=r"old_string not found in k.c"):
        edit_file(tmp_path, {"path": "k.c", "old_string": "int d", "new_string": "x"})
    with pytest.raises(ToolInputError, match=r"different whitespace"):
        edit_file(tmp_path, {"path": "k.c", "old_string": "int  c = 2;", "new_string": "x"})
    with pytest.raises(ToolInputError, match=r"occurs 2 times in k.c \(lines 1, 2\)"):
        edit_file(tmp_path, {"path": "k.c", "old_string": "= 1;", "new_string": "= 3;"})
    out = edit_file(tmp_path, {"path": "k.c", "old_string": "int c = 2;", "new_string": "int c = 4;"})
    assert "line 3" in out.output and f.read_text().endswith("int c = 4;\n")
    edit_file(tmp_path, {"path": "k.c", "old_string": "= 1;", "new_string": "= 3;", "replace_all": True})
    assert f.read_text() == "int a = 3;\nint b = 3;\nint c = 4;\n"


def test_read_file_slices_and_caps(tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 1001)))
    part = read_file(tmp_path, {"path": "big.txt", "offset": 10, "limit": 2}, 10_000).output
    assert part == "[lines 10-11 of 1000]\nline 10\nline 11\n"
    capped = read_file(tmp_path, {"path": "big.txt"}, 100)
    assert capped.truncated and "offset and limit" in capped.output


# -- bash ---------------------------------------------------------------------------------------

def test_shell_output_keeps_head_and_tail(tmp_path):
    r = run_shell("seq 1 20000", cwd=tmp_path, env=dict(os.environ), timeout_s=10, cap_chars=600)
    assert r.truncated and r.output.startswith("1\n2\n3\n") and r.output.rstrip().endswith("20000")
    assert "characters cut" in r.output or "bytes cut" in r.output
    text, cut = cap_text("x" * 50, 10)
    assert cut and text.startswith("xxx") and text.endswith("x" * 7)


def test_shell_timeout_kills_the_whole_process_group(tmp_path):
    start = time.monotonic()
    r = run_shell("sleep 300 & sleep 300 & wait", cwd=tmp_path, env=dict(os.environ), timeout_s=0.4)
    assert r.timed_out and time.monotonic() - start < 3
    assert "timed out after 0.4 s" in r.output


def test_shell_cancel_is_prompt(tmp_path):
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    start = time.monotonic()
    r = run_shell("trap '' TERM; sleep 300", cwd=tmp_path, env=dict(os.environ), timeout_s=60, cancel=cancel)
    assert r.interrupted and time.monotonic() - start < 2


# -- secrets ------------------------------------------------------------------------------------

def test_secret_variables_are_scrubbed_by_name_and_by_value():
    env = {"ANTHROPIC_API_KEY": "sk-ant-abcdefgh12345", "GITHUB_TOKEN": "ghp_x" * 3, "AWS_ACCESS_KEY_ID": "AKIA1234",
           "DB_PASSWORD": "pw-123456789", "ODD_NAME": "sk-ant-abcdefgh12345", "PATH": "/usr/bin", "HOME": "/root",
           "CUDA_VISIBLE_DEVICES": "0"}
    clean = scrubbed_env(env, ["sk-ant-abcdefgh12345"])
    assert clean == {"PATH": "/usr/bin", "HOME": "/root", "CUDA_VISIBLE_DEVICES": "0"}
    assert is_secret_name("SSH_AUTH_SOCK") and not is_secret_name("OMP_NUM_THREADS")


def test_the_redactor_hides_secret_values_everywhere():
    r = Redactor(["hunter2-hunter2"])
    ev = {"output": "pw=hunter2-hunter2 and key sk-ant-api03-AAAAAAAAAAAA", "n": 3,
          "nested": [{"x": "hunter2-hunter2"}]}
    assert r(ev) == {"output": f"pw={REDACTED} and key {REDACTED}", "n": 3, "nested": [{"x": REDACTED}]}


# -- control lines ------------------------------------------------------------------------------

def test_goal_control_lines_only_raise_the_goal():
    c = parse_control("please go on\n/goal 1.5 min_ratio=1.0\nthanks")
    assert c.text == "please go on\nthanks" and c.goal == {"min_geomean": 1.5, "min_scenario_ratio": 1.0}
    task_goal = {"all_correct": True, "min_geomean": 2.0, "min_scenario_ratio": None}
    assert raise_goal(task_goal, {"min_geomean": 1.2})["min_geomean"] == 2.0  # never lowered
    raised = raise_goal(task_goal, c.goal)
    assert raised == {"all_correct": True, "min_geomean": 2.0, "min_scenario_ratio": 1.0}
    assert parse_control("/goal fast").problems and "every scenario's speed-up >= 1x" in render_goal(raised)
    assert parse_control("what is /goal 2?").goal is None  # only a line that starts with it


# -- config -------------------------------------------------------------------------------------

def test_config_layers_and_clear_errors(tmp_path, monkeypatch):
    f = tmp_path / "agent.yaml"
    f.write_text("model: claude-sonnet-4-6\nmax_turns: 7\nprices:\n  claude-sonnet: {input: 1, output: 2, "
                 "cache_write: 3, cache_read: 4}\ndetectors: {stall_evals: 2}\n")
    monkeypatch.setenv("KERNELSEEK_MODEL", "claude-haiku-4-5")
    cfg = load_config(f, max_turns=9)
    assert cfg.model == "claude-haiku-4-5" and cfg.max_turns == 9 and cfg.detectors == {"stall_evals": 2}
    monkeypatch.delenv("KERNELSEEK_MODEL")
    cfg = load_config(f)
    assert cfg.price() == (Price(1, 2, 3, 4), "claude-sonnet")
    f.write_text("max_turn: 3\n")
    with pytest.raises(ConfigError, match="unknown setting 'max_turn'"):
        load_config(f)
    f.write_text("thinking: lots\n")
    with pytest.raises(ConfigError, match="thinking"):
        load_config(f)
    f.write_text("a: [\n")
    with pytest.raises(ConfigError, match=r"agent.yaml:\d+: not valid YAML"):
        load_config(f)


def test_prices_by_model_family():
    assert price_for("claude-opus-4-1-20250805")[1] == "claude-opus-4-1"
    assert price_for("claude-opus-4-6")[0].input == 5.0
    assert price_for("claude-sonnet-4-5")[0].output == 15.0
    assert price_for("some-new-model")[1] == "default"
    p = Price(3.0, 15.0, 3.75, 0.3)
    assert cost_usd(p, input_tokens=1_000_000, output_tokens=0, cache_read_tokens=1_000_000) == pytest.approx(3.3)


# -- the conversation fold ----------------------------------------------------------------------

def test_the_fold_keeps_only_the_attempt_that_completed_and_orders_results_first():
    conv = Conversation()
    log = [
        ev(0, "session_start", task="t", prompt={"system": "S", "task": "T"}),
        ev(1, "assistant_text", text="cut short", turn=1, attempt=1),
        ev(2, "assistant_text", text="whole", turn=1, attempt=2),
        ev(3, "tool_call", id="a", name="bash", input={"command": "ls"}, turn=1, attempt=2),
        ev(4, "usage", turn=1, attempt=2, stop_reason="tool_use"),
        ev(5, "human_message", text="hello", inbox_id="m1"),
        ev(6, "tool_result", id="a", output="x.c"),
        ev(7, "tool_result", id="zzz", output="stray"),  # no such call: ignored
        ev(8, "assistant_text", text="never finished", turn=2, attempt=1),  # crash: no usage
        ev(9, "session_resume"),
    ]
    for e in log:
        conv.add(e)
    assert conv.system == "S"
    assert conv.messages == [
        {"role": "user", "content": [{"type": "text", "text": "T"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "whole"},
                                          {"type": "tool_use", "id": "a", "name": "bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "x.c"},
                                     {"type": "text", "text": "[Message from the steerer]\nhello"}]},
    ]
    conv.add(ev(10, "assistant_text", text="again", turn=2, attempt=1))
    conv.add(ev(11, "usage", turn=2, attempt=1, stop_reason="end_turn"))
    assert conv.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "again"}]}


def test_compaction_spares_evaluations_and_human_words():
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "TASK " * 2000}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "e", "name": "evaluate", "input": {}},
                                          {"type": "tool_use", "id": "b", "name": "bash", "input": {"command": "x"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "e", "content": "TABLE " * 2000},
                                     {"type": "tool_result", "tool_use_id": "b", "content": "LOG " * 2000},
                                     {"type": "text", "text": "[Message from the steerer]\n" + "why " * 2000}]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    ]
    out = compact(msgs, upto=3, level=2, protected_ids={"e"})
    assert out[0] == msgs[0] and out[2]["content"][0] == msgs[2]["content"][0]
    assert out[2]["content"][2] == msgs[2]["content"][2]
    assert len(out[2]["content"][1]["content"]) < 1000 and "shortened" in out[2]["content"][1]["content"]
    assert msgs[2]["content"][1]["content"] == "LOG " * 2000  # the original is untouched


def test_every_event_type_prints_as_lines_of_one_row_each():
    from console.commands.run import EventLines

    samples = [
        ev(0, "session_start", task="t", model="m", device="cpu", goal={"min_geomean": 2}),
        ev(1, "assistant_text", text="a\nb"), ev(2, "thinking", text="hmm"),
        ev(3, "tool_call", id="c1", name="bash", input={"command": "ls\n-la"}),
        ev(4, "tool_result", id="c1", name="bash", output="x\ny", duration_s=0.5),
        ev(5, "eval_start", candidate="c.c", quick=True, scenarios=3), ev(6, "eval_progress", done=1, total=3),
        ev(7, "eval_result", summary={"geomean": 1.2, "passed": 3, "total": 3}, report="evals/0001.json"),
        ev(8, "decision_point", kind="stall", evidence="e", suggestions=[{"id": "q", "text": "?"}]),
        ev(9, "human_message", text="hi", source="free"), ev(10, "stop_check", goal_met=False, reasons=["r"]),
        ev(11, "usage", input_tokens=1, output_tokens=2), ev(12, "error", message="boom"),
        ev(13, "compaction", upto=3), ev(14, "something_new", x=1), ev(15, "session_end", reason="goal_met"),
    ]
    printer = EventLines(100)
    printed = {ev["type"]: printer.add(ev) for ev in samples}
    for kind, lines in printed.items():
        assert all("\n" not in line and len(line) <= 100 for line in lines), kind
    assert printed["usage"] == [] and printed["eval_progress"] == []
    assert "▸ bash ls -la" in printed["tool_call"][0] and printed["tool_result"][0].endswith("0.50s ✓")
    assert "1.200×" in printed["eval_result"][0] and "[YOU · free] hi" in printed["human_message"][0]
    assert "[STALL] e" in printed["decision_point"][0] and "something_new" in printed["something_new"][0]
    assert "session ended: goal_met" in printed["session_end"][0]


def test_the_printer_shows_escape_sequences_and_never_sends_them():
    from console.commands.run import EventLines

    nasty = ("\x1b]0;owned title\x07 \x1b]52;c;Y3VybCBldmlsLnNo\x07 \x1b[?1000h \x9b31m "
             "\u202eevil\u202c \x1b[2J")
    printer = EventLines(300)
    lines = printer.add(ev(0, "tool_call", id="a", name="bash", input={"command": nasty}))
    lines += printer.add(ev(1, "tool_result", id="a", name="bash", output=nasty))
    lines += printer.add(ev(2, "assistant_text", text=nasty))
    lines += printer.add(ev(3, "error", message=nasty))
    text = "\n".join(lines)
    assert not any(c in text for c in "\x1b\x07\x9b\u202e\u202c")
    assert "␛]52;c;" in text and "⟨U+202E⟩" in text  # shown, so the reader sees what was tried


def test_session_start_names_the_arch_and_capabilities_ranking_filters_on():
    from agent.facts import task_arch, task_capabilities
    from evaluator.task import load_task

    cuda = load_task("rmsnorm-cuda")
    assert task_arch(cuda) == "sm90" and task_arch(load_task("softmax-cpu")) == "cpu"
    assert "other_implementation" in task_capabilities(cuda)  # its harness times an upstream baseline
    assert "other_implementation" not in task_capabilities(load_task("softmax-cpu"))


def test_everything_the_runner_writes_to_its_terminal_or_log_is_inert():
    import io

    from console.commands.run import InertStream

    sink = io.StringIO()
    stream = InertStream(sink)
    stream.write("Traceback: \x1b]52;c;ZXZpbA==\x07 \x1b[?1049h \u202egnp.exe\u202c\n")
    assert sink.getvalue() == "Traceback: ␛]52;c;ZXZpbA==␇ ␛[?1049h ⟨U+202E⟩gnp.exe⟨U+202C⟩\n"
