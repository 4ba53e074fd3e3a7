"""Limits, the context budget, stopping, and a runner that outlives its terminal."""
from __future__ import annotations

import signal
import subprocess
import uuid

import pytest

from agent_helpers import REPO, cli_env, events, kernelseek, make_runner, of_type, wait_for_event, write_config
from fake_anthropic import FakeAnthropic, Reply, text, tool
from sessions.inbox import Inbox


def test_max_cost_ends_the_session_before_the_next_request(fake, tmp_path):
    server = fake([Reply(tool("bash", command="true")), Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_cost=1e-6)
    assert runner.run() == "max_cost"
    assert len(server.requests) == 1
    end = of_type(events(tmp_path / "s"), "session_end")[-1]
    assert end["reason"] == "max_cost" and "limit $1e-06" in end["detail"]
    assert end["summary"]["cost_usd"] > 0


def test_max_hours_ends_the_session(fake, tmp_path):
    server = fake([Reply(tool("bash", command="sleep 0.7")), Reply(tool("bash", command="true"))])
    runner = make_runner("attention-cpu", tmp_path / "s", max_hours=0.5 / 3600)
    assert runner.run() == "max_hours"
    assert len(server.requests) == 1


def test_a_message_that_arrives_as_a_limit_ends_the_session_stays_in_the_inbox(fake, tmp_path):
    holder = {}

    def post(req):
        holder["runner"].inbox.post("Are you there?")
        return Reply(tool("bash", command="true"))

    fake([post])
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=1)
    holder["runner"] = runner
    assert runner.run() == "max_turns"
    assert not of_type(events(tmp_path / "s"), "human_message")  # never acknowledged unseen
    assert [m.text for m in Inbox(tmp_path / "s").pending()] == ["Are you there?"]


def test_long_sessions_compact_old_tool_outputs_and_keep_human_messages(fake, tmp_path):
    question = "Which layer is the bottleneck: memory, compute, or launch?"
    holder = {}

    def model(req):
        n = req.step
        if n == 1:
            holder["runner"].inbox.post(question)
        return Reply(tool("bash", command=f"seq {n} 1200"))

    server = fake(handler=model)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=8, context_window=9000,
                         keep_recent_messages=2)
    holder["runner"] = runner
    assert runner.run() == "max_turns"
    assert server.problems == []
    evs = events(tmp_path / "s")
    compactions = of_type(evs, "compaction")
    assert compactions and all(c["after_tokens"] < c["before_tokens"] for c in compactions)
    last = server.requests[-1]
    assert "shortened to save context" in last.all_text()
    assert last.count(question) == 1  # the steerer's words are kept whole
    assert "# Task: attention-cpu" in last.first_user_text  # and so is the task
    # every request stayed near the budget while the full log keeps every output
    from agent.conversation import estimate_tokens

    assert estimate_tokens(last.messages) < 9000
    outputs = [e["output"] for e in of_type(evs, "tool_result")]
    assert all(o.rstrip().endswith("1200") and "shortened" not in o for o in outputs)


def test_sigterm_stops_the_session_and_its_running_tool(tmp_path):
    with FakeAnthropic([Reply(tool("bash", command="sleep 600"))]) as server:
        proc = kernelseek(["run", "attention-cpu", "--session", str(tmp_path / "s"), "--config",
                           str(write_config(tmp_path / "agent.yaml"))], cli_env(server, tmp_path / "home"))
        wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call", timeout=60)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    evs = events(tmp_path / "s")
    assert of_type(evs, "tool_result")[0]["interrupted"] is True
    assert evs[-1]["type"] == "session_end" and evs[-1]["reason"] == "stopped"


def test_a_closed_stdout_does_not_stop_the_runner(tmp_path):
    script = [Reply(text("one"), tool("bash", command="true")), Reply(text("two"), tool("bash", command="true"))]
    with FakeAnthropic(script) as server:
        proc = kernelseek(["run", "attention-cpu", "--session", str(tmp_path / "s"), "--max-turns", "2",
                           "--config", str(write_config(tmp_path / "agent.yaml"))],
                          cli_env(server, tmp_path / "home"), stderr=subprocess.DEVNULL)
        proc.stdout.close()  # the terminal went away: every print now fails
        assert proc.wait(120) == 3
    assert of_type(events(tmp_path / "s"), "session_end")[-1]["reason"] == "max_turns"


@pytest.mark.parametrize("kind", ["bwrap", "unshare"])
def test_the_sandbox_confines_bash_to_the_workspace(fake, tmp_path, monkeypatch, kind):
    from evaluator.sandbox import find_sandbox

    if not find_sandbox(kind).confines:
        pytest.skip(f"{kind} cannot confine here: {find_sandbox(kind).note}")
    outside = REPO / f"ks-outside-{uuid.uuid4().hex[:8]}.txt"  # the repository is read-only inside
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / ".netrc").write_text("machine x password y")
    monkeypatch.setenv("HOME", str(home))
    server = fake([])
    port = server.url.rsplit(":", 1)[1]
    command = (f"echo inside > note.txt && cat note.txt; (echo x > {outside}) 2>/dev/null || echo denied; "
               f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo network || echo no-network; "
               f"ls -A {home}/.ssh 2>/dev/null | wc -l; cat {home}/.netrc 2>/dev/null | wc -c; "
               "ls /proc | grep -c '^[0-9]'")
    server.add(Reply(tool("bash", command=command)), Reply(tool("bash", command="true")))
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2, sandbox=kind)
    assert runner.sandbox.kind == kind
    try:
        runner.run()
    finally:
        outside.unlink(missing_ok=True)
    out = of_type(events(tmp_path / "s"), "tool_result")[0]["output"].splitlines()
    assert out[:2] == ["inside", "denied"]
    assert out[2] == ("no-network" if runner.sandbox.network_unsharable else "network")
    assert out[3:5] == ["0", "0"]  # credential stores are empty (or absent) inside
    assert int(out[5]) < 8  # its own PID namespace: none of the machine's processes
    assert (tmp_path / "s" / "workspace" / "note.txt").read_text() == "inside\n"
    start = of_type(events(tmp_path / "s"), "session_start")[0]
    assert start["sandboxed"] is True and start["sandbox"].startswith(kind)
