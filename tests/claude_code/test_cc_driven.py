"""Claude Code driven headless: the real `claude` CLI, the real `kernelseek run --agent claude-code`,
the scripted Messages API. The gate, delivery, interrupts, resume and secrets, measured."""
from __future__ import annotations

import signal
import time

from agent_helpers import (API_KEY, assert_no_key_in, cli_env, kernelseek, processes_with, task_copy, wait_for_event,
                           write_config)
from cc_helpers import (DOT, DOT_SIMD, MODEL, bash, edit, events, of_type, read, requests_holding, wait_until)
from fake_anthropic import FakeAnthropic, Reply, by_step, text
from sessions.inbox import Inbox


def _run(task, session, server, tmp_path, *extra, turns=12):
    cfg = write_config(tmp_path / "agent.yaml", model=MODEL)
    return kernelseek(["run", str(task), "--session", str(session), "--agent", "claude-code",
                       "--max-turns", str(turns), "--config", str(cfg), *extra], cli_env(server, tmp_path / "home"))


def test_a_premature_done_is_blocked_with_the_facts_and_a_later_one_ends_goal_met(claude, tmp_path):
    # the seed cannot reach 1.3x against itself; the vectorised reduction does (it reads ~2-3x)
    task = task_copy(tmp_path, "attention-cpu", min_geomean=1.3)
    ws = tmp_path / "s" / "workspace"
    script = by_step(
        Reply(text("Measuring the seed first."), bash("ks-evaluate --quick", "evaluate the seed")),
        Reply(text("That is as fast as it gets. Done.")),
        Reply(text("The gate disagrees; reading the kernel."), read(ws)),
        Reply(text("The dot product is a serial chain of adds: vectorising it."), edit(ws, DOT, DOT_SIMD)),
        Reply(text("Done: the reduction is vectorised.")),
        then=Reply(text("Done.")))
    with FakeAnthropic(handler=script) as server:
        proc = _run(task, tmp_path / "s", server, tmp_path)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err + out
    evs = events(tmp_path / "s")
    start = evs[0]
    assert start["agent"] == "claude-code" and start["agent_version"] and start["sandboxed"] is True
    first, last = of_type(evs, "stop_check")[0], of_type(evs, "stop_check")[-1]
    assert first["blocked"] and not first["goal_met"] and any("geomean" in r for r in first["reasons"])
    assert last["goal_met"] and not last["blocked"]
    # the refusal reached the model in its next request, through the Stop hook, with the facts
    after_refusal = server.requests[2].all_text()
    assert "Stop hook feedback" in after_refusal and first["feedback"].splitlines()[0] in after_refusal
    assert of_type(evs, "session_end")[-1]["reason"] == "goal_met"
    # ks-evaluate is logged as an evaluation of the Bash call that ran it
    call = next(e for e in of_type(evs, "tool_call") if e["name"] == "Bash")
    ev = of_type(evs, "eval_start")[0]
    assert ev["call_id"] == call["id"]
    result = next(e for e in of_type(evs, "tool_result") if e["id"] == call["id"])
    assert result["eval_seq"] == of_type(evs, "eval_result")[0]["seq"] and "geomean" in result["output"]
    # every request priced: the proxy saw each one
    usage = of_type(evs, "usage")
    assert len(usage) == len(server.requests) and usage[-1]["total_cost_usd"] > 0
    assert (ws / "candidate.c").read_text().count("#pragma omp simd reduction(+:dot)") == 1
    assert "stop refused" in out and "session ended: goal_met" in out


def test_a_question_sent_mid_turn_arrives_after_the_current_tool_call_exactly_once(claude, tmp_path):
    question = "What does a profile of the decode scenario say? (q-1)"
    script = by_step(
        Reply(text("A long measurement."), bash("sleep 3; echo measured", "measure")),
        Reply(text("Answering the question."), bash("echo profiled", "profile")),
        then=Reply(text("Done.")))
    with FakeAnthropic(handler=script) as server:
        proc = _run("attention-cpu", tmp_path / "s", server, tmp_path, turns=3)
        call = wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call" and "sleep 3" in e["input"]["command"],
                              timeout=60)
        posted = Inbox(tmp_path / "s").post(question)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    evs = events(tmp_path / "s")
    (ack,) = of_type(evs, "human_message")
    assert ack["inbox_id"] == posted.id and ack["seq"] > call["seq"]
    # acknowledged in the log before the model was asked again, and then in every request once
    assert ack["t"] <= server.requests[1].t
    assert requests_holding(server, question) == [0] + [1] * (len(server.requests) - 1)
    # in the request right after the tool call: after its result, as the hook's context
    last_user = server.requests[1].last_user()
    assert last_user[0]["type"] == "tool_result" and question in str(last_user[1:])


def test_exactly_once_across_a_kill_9_and_resume(claude, tmp_path):
    session = tmp_path / "s"
    waiting = "Did the long run finish? (q-2)"
    lost = "Which layer did you not measure yet? (q-3)"
    with FakeAnthropic(handler=by_step(Reply(text("A long one."), bash("sleep 30; echo finished", "long")))) as s1:
        proc = _run("attention-cpu", session, s1, tmp_path)
        wait_for_event(session, lambda e: e["type"] == "tool_call" and "sleep 30" in e["input"]["command"], timeout=60)
        waiting_msg = Inbox(session).post(waiting)
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        before = len(s1.requests)
    # Claude Code and its tools died with the runner (the sandbox dies with its parent)
    assert wait_until(lambda: not processes_with(str(session / "workspace")), timeout=10)
    # a message acknowledged just before the crash, whose handing-over was lost
    from sessions.log import SessionWriter

    lost_msg = Inbox(session).post(lost)
    with SessionWriter(session / "events.jsonl", lock_path=session / "writer.lock") as w:
        Inbox(session).acknowledge(w, lost_msg)
    script2 = by_step(Reply(text("unused")), Reply(text("Resumed; checking."), bash("echo checked", "check")),
                      then=Reply(text("Done.")))
    with FakeAnthropic(handler=script2) as s2:
        proc = kernelseek(["run", "--resume", str(session), "--max-turns", "3",
                           "--config", str(write_config(tmp_path / "agent2.yaml", model=MODEL))],
                          cli_env(s2, tmp_path / "home"))
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err + out
    assert before == 1
    # the conversation went on (Claude Code's own --resume), and each message came exactly once
    assert "A long one." in s2.requests[0].all_text()
    for needle in (waiting, lost):
        assert requests_holding(s2, needle) == [1] * len(s2.requests), needle
    evs = events(session)
    assert [e["inbox_id"] for e in of_type(evs, "human_message")] == [lost_msg.id, waiting_msg.id]
    resume = of_type(evs, "session_resume")[0]
    assert resume["redelivered"] == [lost_msg.id] and resume["session_id"] == evs[0]["session_id"]


def test_an_interrupt_stops_a_long_tool_call_within_a_second(claude, tmp_path):
    script = by_step(Reply(text("A very long experiment."), bash("sleep 60; echo never", "long")),
                     then=Reply(text("Stopped, as asked. Done.")))
    with FakeAnthropic(handler=script) as server:
        proc = _run("attention-cpu", tmp_path / "s", server, tmp_path, turns=2)
        call = wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call" and "sleep 60" in e["input"]["command"],
                              timeout=60)
        time.sleep(0.3)  # the command is running
        t0 = time.time()
        Inbox(tmp_path / "s").post("Stop that: measure the decode scenario alone first.", kind="interrupt")
        result = wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_result" and e["id"] == call["id"],
                                timeout=30)
        stopped_in = result["t"] - t0
        wait_until(lambda: not processes_with("sleep 60"), timeout=5, poll=0.01)
        gone_in = time.time() - t0
        out, err = proc.communicate(timeout=120)
    print(f"interrupt: tool result after {stopped_in:.3f} s, the command's processes gone after {gone_in:.3f} s")
    assert stopped_in < 1.0 and gone_in < 1.0, (stopped_in, gone_in)
    assert result["interrupted"] and result["is_error"]
    evs = events(tmp_path / "s")
    (ack,) = of_type(evs, "human_message")
    assert ack["kind"] == "interrupt" and ack["cancelled"] == "tool"
    marker = "[The steerer interrupted you: the running tool was stopped]"
    assert requests_holding(server, marker) == [0] + [1] * (len(server.requests) - 1)
    assert requests_holding(server, "measure the decode scenario alone first") == [0, 1]


def test_the_key_reaches_neither_the_session_nor_claude_codes_tools(claude, tmp_path):
    snoop = ("env | grep -c -i -e sk-ant -e '^ANTHROPIC_API_KEY=sk'; for f in /proc/[0-9]*/environ; do "
             "base64 -w0 $f; echo; done; base64 -w0 \"$CLAUDE_CONFIG_DIR/.claude.json\"; echo; "
             "cat /proc/*/cmdline | tr '\\0' ' ' | base64 -w0; echo; ls /proc | grep -c '^[0-9]'")
    script = by_step(Reply(bash(snoop, "look around")), then=Reply(text("Done.")))
    with FakeAnthropic(handler=script) as server:
        proc = _run("attention-cpu", tmp_path / "s", server, tmp_path, turns=2)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    evs = events(tmp_path / "s")
    output = of_type(evs, "tool_result")[0]["output"]
    assert output.splitlines()[0] == "0"
    assert int(output.strip().splitlines()[-1]) < 12  # the sandbox's own processes, none of the machine's
    assert_no_key_in(output.encode(), "Claude Code's tool output")
    for path in (tmp_path / "s").rglob("*"):
        if path.is_file():
            assert_no_key_in(path.read_bytes(), str(path))  # Claude Code's own transcript included
    assert all(r.api_key == API_KEY for r in server.requests)  # the proxy put the key back on each
    token = [r for r in output.split() if "ks-session-" in r]
    assert not token or "ks-session-" not in (tmp_path / "s" / "events.jsonl").read_text()


def test_without_claude_code_it_is_one_line_and_no_session(tmp_path):
    with FakeAnthropic() as server:
        cfg = write_config(tmp_path / "agent.yaml", claude_code_path=str(tmp_path / "nowhere" / "claude"))
        proc = kernelseek(["run", "attention-cpu", "--session", str(tmp_path / "s"), "--agent", "claude-code",
                           "--config", str(cfg)], cli_env(server, tmp_path / "home"))
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and len(err.strip().splitlines()) == 1 and "claude_code_path" in err
    assert not (tmp_path / "s").exists()


def test_the_install_hint_names_the_npm_package(monkeypatch, tmp_path):
    from agent.adapter import AgentError
    from agent.claude_code import install

    monkeypatch.setattr(install, "prefixes", lambda: [tmp_path / "empty"])
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("KERNELSEEK_CLAUDE_CODE", raising=False)
    try:
        install.find_claude()
    except AgentError as exc:
        assert "npm install --prefix" in str(exc) and "@anthropic-ai/claude-code" in str(exc)
    else:
        raise AssertionError("found a claude where there is none")



def test_steer_starts_claude_code_detached_and_the_console_attaches(claude, tmp_path, monkeypatch):
    import console.app
    from console.commands import steer

    opened = []

    class StandIn:  # the console: records how steer opened it, waits until the agent works
        def __init__(self, paths, mode="live", *, runner=None, **kw):
            self.paths, self.runner = paths, runner

        def run(self):
            opened.append(self)
            wait_until(lambda: of_type(events(self.paths.root), "tool_call"), timeout=60)

    monkeypatch.setattr(console.app, "ConsoleApp", StandIn)
    script = by_step(Reply(text("Working."), bash("echo working", "work")), then=Reply(text("Done.")))
    with FakeAnthropic(handler=script) as server:
        for k, v in cli_env(server, tmp_path / "home").items():
            monkeypatch.setenv(k, v)
        cfg = write_config(tmp_path / "agent.yaml", model=MODEL)
        assert steer.steer("attention-cpu", sessions_dir=str(tmp_path / "sessions"), agent="claude-code",
                           max_turns=2, config=str(cfg)) == 0
        (app,) = opened
        assert app.runner.wait(60) == 3  # the detached runner ended the session at --max-turns
    evs = events(app.paths.root)
    assert evs[0]["agent"] == "claude-code" and of_type(evs, "session_end")[-1]["reason"] == "max_turns"


def test_a_limit_stops_claude_code_at_the_next_tool_boundary_before_another_request(claude, tmp_path):
    script = by_step(Reply(bash("echo one", "one")), then=Reply(bash("echo again", "again")))
    with FakeAnthropic(handler=script) as server:
        proc = _run("attention-cpu", tmp_path / "s", server, tmp_path, turns=1)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    assert len(server.requests) == 1  # the tool ran, and no second request was made
    evs = events(tmp_path / "s")
    assert [e["output"] for e in of_type(evs, "tool_result")] == ["one"]
    assert of_type(evs, "session_end")[-1]["detail"] == "1 turns (limit 1)"
