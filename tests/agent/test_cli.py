"""`kernelseek run` as a real child process: credentials, secrets, kill -9 and --resume."""
from __future__ import annotations

import json
import os
import signal
import time
import uuid

from agent_helpers import (API_KEY, cli_env, events, kernelseek, make_runner, of_type, processes_with,
                           strip_cache, wait_for_event, write_config)
from fake_anthropic import FakeAnthropic, Reply, text, tool
from sessions.inbox import Inbox


def test_a_missing_api_key_is_one_clear_error(tmp_path):
    # a home without any Anthropic profile on disk
    env = cli_env(None, tmp_path / "home", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = kernelseek(["run", "attention-cpu", "--session", str(tmp_path / "s")], env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "ANTHROPIC_API_KEY" in lines[0] and "Traceback" not in err
    assert not (tmp_path / "s").exists()  # no half-made session


def test_the_bash_tool_sees_no_api_key_and_the_log_holds_none(tmp_path):
    command = "env | grep -i -E '^[^=]*(key|token|secret)[^=]*=' ; env | grep -c sk-ant ; echo checked"
    with FakeAnthropic([Reply(tool("bash", command=command)), Reply(tool("bash", command="true"))]) as server:
        env = cli_env(server, tmp_path / "home", GITHUB_TOKEN="ghp_notarealtoken123456",
                      MY_SERVICE_SECRET="hunter2-hunter2", HARMLESS_SETTING="kept-value")
        cfg = write_config(tmp_path / "agent.yaml")
        proc = kernelseek(["run", "attention-cpu", "--session", str(tmp_path / "s"), "--max-turns", "2",
                           "--config", str(cfg)], env)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err  # ended by --max-turns
    result = of_type(events(tmp_path / "s"), "tool_result")[0]
    assert result["output"].splitlines() == ["0", "checked"]
    assert server.requests[1].result_text() == result["output"]
    # the key was sent to the API as the SDK sends it, and is nowhere in the session
    assert server.requests[0].api_key == API_KEY
    for path in (tmp_path / "s").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert API_KEY.encode() not in data and b"hunter2" not in data and b"ghp_" not in data, path
    # headless output: the console's rows, one line each
    assert "● session attention-cpu" in out and "▸ bash env" in out and "■ session ended: max_turns" in out


def test_bash_in_the_workspace_can_still_use_ordinary_settings(fake, tmp_path):
    os.environ["HARMLESS_SETTING"] = "kept-value"
    try:
        fake([Reply(tool("bash", command="echo $HARMLESS_SETTING; pwd")), Reply(tool("bash", command="true"))])
        runner = make_runner("attention-cpu", tmp_path / "s", max_turns=2)
        runner.run()
    finally:
        del os.environ["HARMLESS_SETTING"]
    result = of_type(events(tmp_path / "s"), "tool_result")[0]
    assert result["output"].splitlines()[:2] == ["kept-value", str((tmp_path / "s" / "workspace").resolve())]


def test_kill_9_then_resume_continues_with_the_conversation_intact(tmp_path):
    marker = f"ks-{uuid.uuid4().hex[:10]}"
    home = tmp_path / "home"
    session = tmp_path / "s"
    cfg = write_config(tmp_path / "agent.yaml")
    first_script = [
        Reply(text("Looking around."), tool("bash", command="ls")),
        Reply(text("A long experiment."), tool("bash", command=f"sleep 30; echo {marker}")),
    ]
    with FakeAnthropic(first_script) as server:
        proc = kernelseek(["run", "attention-cpu", "--session", str(session), "--config", str(cfg)],
                          cli_env(server, home))
        call = wait_for_event(session, lambda e: e["type"] == "tool_call" and marker in e["input"]["command"],
                              timeout=60)
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        before = server.requests[:]
    # the command died with the runner (the sandbox is killed with its parent): nothing orphaned
    deadline = time.monotonic() + 5
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = processes_with(marker)
    _kill_group_of(marker)  # never leave one behind, whatever the assertion says
    assert left == []
    # the crash left no session_end; a torn half line at the end must not hurt
    assert not of_type(events(session), "session_end")
    with open(session / "events.jsonl", "ab") as f:
        f.write(b'{"v":1,"seq":99999,"t":1.0,"type":"tool_res')
    # a message typed while the runner was dead is delivered on resume, once
    waiting = Inbox(session).post("Did the experiment finish?")
    second_script = [Reply(text("Re-running it shorter."), tool("bash", command="echo short")),
                     Reply(tool("bash", command="true"))]
    with FakeAnthropic(second_script) as server2:
        proc = kernelseek(["run", "--resume", str(session), "--max-turns", "4", "--config", str(cfg)],
                          cli_env(server2, home))
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    resumed = server2.requests[0]
    # the conversation the server saw before the crash is the prefix of the resumed one
    old = strip_cache(before[-1].messages)
    new = strip_cache(resumed.messages)
    assert new[: len(old)] == old
    assert new[len(old)]["role"] == "assistant"
    assert new[len(old)]["content"] == [{"type": "text", "text": "A long experiment."},
                                        {"type": "tool_use", "id": call["id"], "name": "bash",
                                         "input": call["input"]}]
    tail = new[len(old) + 1]["content"]
    assert tail[0]["tool_use_id"] == call["id"] and tail[0]["is_error"] and "runner stopped" in tail[0]["content"]
    assert tail[1] == {"type": "text", "text": "[Message from the steerer]\nDid the experiment finish?"}
    assert resumed.system_text == before[0].system_text
    assert [r.count("Did the experiment finish?") for r in server2.requests] == [1, 1]
    # the conversation rebuilt from the log is what the server received
    from agent.conversation import Conversation

    conv = Conversation()
    evs = events(session)
    for ev in evs:
        conv.add(ev)
    assert strip_cache(conv.messages)[: len(new)] == new
    kinds = [e["type"] for e in evs]
    assert kinds.count("session_start") == 1 and kinds.count("session_resume") == 1
    assert of_type(evs, "session_end")[-1]["reason"] == "max_turns"
    (ack,) = of_type(evs, "human_message")
    assert ack["inbox_id"] == waiting.id
    seqs = [e["seq"] for e in evs]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_resume_of_a_running_session_is_refused(tmp_path):
    from sessions.log import SessionWriter

    session = tmp_path / "s"
    session.mkdir()
    (session / "events.jsonl").write_text(json.dumps({"v": 1, "seq": 0, "t": 1.0, "type": "session_start",
                                                      "task": "attention-cpu"}) + "\n")
    with SessionWriter(session / "events.jsonl"), FakeAnthropic() as server:
        proc = kernelseek(["run", "--resume", str(session)], cli_env(server, tmp_path / "home"))
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "already being written" in err and len(err.strip().splitlines()) == 1


def _kill_group_of(marker: str) -> None:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() not in f.read():
                    continue
            os.killpg(os.getpgid(int(pid)), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def test_a_detached_runner_outlives_the_process_that_started_it(tmp_path):
    """What `kernelseek steer` does: spawn, wait for session_start, quit; the session goes on."""
    session = tmp_path / "s"
    script = [Reply(tool("bash", command="sleep 1")), Reply(tool("bash", command="true"))]
    with FakeAnthropic(script) as server:
        env = cli_env(server, tmp_path / "home")
        starter = (
            "import os, sys, json\n"
            "from agent.launch import run_argv, spawn_runner, wait_until_running\n"
            f"argv = run_argv('attention-cpu', session={str(session)!r}, max_turns=2, config={str(write_config(tmp_path / 'agent.yaml'))!r})\n"
            f"proc = spawn_runner(argv, {str(session)!r})\n"
            f"ev = wait_until_running({str(session)!r}, proc)\n"
            "print(json.dumps({'type': ev['type'], 'sid': os.getsid(proc.pid), 'my_sid': os.getsid(0)}))\n"
        )
        import subprocess
        import sys

        out = subprocess.run([sys.executable, "-c", starter], env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        started = json.loads(out.stdout)
        assert started["type"] == "session_start"
        assert started["sid"] != started["my_sid"]  # its own session: no SIGHUP from the console's terminal
        # the starter is gone; the runner finishes the session on its own
        end = wait_for_event(session, lambda e: e["type"] == "session_end", timeout=60)
    assert end["reason"] == "max_turns"
    assert (session / "runner.log").exists()
