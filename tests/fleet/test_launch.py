"""Launching and stopping without a scheduler: stop through the session, several local runners,
arms, private session directories, and the errors a user can cause."""
from __future__ import annotations

import json
import os
import stat
import time

import pytest

from agent_helpers import make_runner, resume_runner, run_in_thread
from fake_anthropic import Reply, by_step, tool
from fleet_helpers import WORKER, cli_env, events, kernelseek, launch_record, of_type, sessions_json, wait_for_event, \
    wait_until, write_config
from sessions.inbox import Inbox

BUSY = by_step(Reply(tool("bash", command="sleep 30")), then=Reply(tool("bash", command="sleep 30")))


def test_a_stop_line_in_the_inbox_ends_the_session_at_once_with_its_id(fake, tmp_path):
    fake(handler=BUSY)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=5)
    thread, box = run_in_thread(runner)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call")
    t0 = time.monotonic()
    stop = Inbox(tmp_path / "s").request_stop(author="ann")
    thread.join(15)
    assert box["reason"] == "stopped" and time.monotonic() - t0 < 3  # the sleeping tool was killed
    end = of_type(events(tmp_path / "s"), "session_end")[-1]
    assert end["by"] == "stop_request" and end["inbox_id"] == stop.id and end["detail"] == "stop requested by ann"
    assert not of_type(events(tmp_path / "s"), "human_message")  # a stop is no message for the model
    assert Inbox(tmp_path / "s").stop_requests() == [] and Inbox(tmp_path / "s").pending() == []


def test_a_resume_voids_a_stop_made_before_it(fake, tmp_path):
    fake(handler=BUSY)
    runner = make_runner("attention-cpu", tmp_path / "s", max_turns=3)
    thread, box = run_in_thread(runner)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call")
    runner.request_stop("stopped", by="signal", detail="SIGTERM")  # as SIGTERM does
    thread.join(15)
    assert of_type(events(tmp_path / "s"), "session_end")[-1]["by"] == "signal"
    late = Inbox(tmp_path / "s").request_stop()  # nobody obeys it: the runner is gone
    again = resume_runner(tmp_path / "s", max_turns=3)
    resume = of_type(events(tmp_path / "s"), "session_resume")[-1]
    assert resume["voided_stops"] == [late.id]
    thread, box = run_in_thread(again)
    wait_for_event(tmp_path / "s", lambda e: e["type"] == "tool_call" and e["seq"] > resume["seq"])
    assert thread.is_alive()  # the old stop did not end the resumed session
    Inbox(tmp_path / "s").request_stop()
    thread.join(15)
    assert box["reason"] == "stopped"


def test_a_runner_refuses_a_session_others_can_write_with_the_permission_to_fix(fake, tmp_path):
    server = fake(handler=BUSY)
    s = tmp_path / "s"
    s.mkdir(mode=0o700)
    (s / "inbox.jsonl").write_text("")
    os.chmod(s / "inbox.jsonl", 0o666)
    r = kernelseek(["run", "attention-cpu", "--session", str(s)], cli_env(server, tmp_path / "home"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "inbox.jsonl is writable by everyone" in r.stderr and "chmod o-w" in r.stderr
    assert not (s / "events.jsonl").exists() or not events(s)


def test_count_and_arms_start_several_private_local_sessions_and_stop_ends_one(fake, tmp_path):
    server = fake(handler=WORKER)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    env = cli_env(server, home, KERNELSEEK_STEERING_LOG="off")
    cfg = write_config(home / "agent.yaml", max_turns=200)
    r = kernelseek(["run", "softmax-cpu", "--count", "3", "--arms", "autopilot,model=scripted-b", "--config",
                    str(cfg)], env)
    assert r.returncode == 0, r.stderr
    sessions = sorted((home / "sessions").iterdir())
    assert [s.name[-2:] for s in sessions] == ["-0", "-1", "-2"]
    for s in sessions:
        wait_for_event(s, lambda e: e["type"] == "session_start")
    starts = [events(s)[0] for s in sessions]
    assert [st["config"]["autopilot"] for st in starts] == [True, False, True]
    assert starts[1]["model"] == "scripted-b"
    for s in sessions:
        assert stat.S_IMODE(s.stat().st_mode) == 0o700
        rec = launch_record(s)
        assert rec["launcher"] == "local" and rec["jobs"][-1]["pid"] == events(s)[0]["pid"]
    manifest = json.loads(next((home / "batches").glob("*/batch.json")).read_text())
    assert [x["arm"] for x in manifest["sessions"]] == ["autopilot", "model=scripted-b", "autopilot"]
    rows = sessions_json(env)
    assert all(rows[s.name]["state"] == "running" and rows[s.name]["where"].startswith("pid ") for s in sessions)
    r = kernelseek(["stop", str(sessions[1])], env)
    assert r.returncode == 0 and "stopped: stopped" in r.stdout
    for s in (sessions[0], sessions[2]):
        assert kernelseek(["stop", str(s)], env).returncode == 0
    rows = wait_until(lambda: (x := sessions_json(env)) and all(v["state"] == "stopped" for v in x.values()) and x,
                      timeout=20, what="all stopped")
    assert all(v["reason"].startswith("stop requested by") for v in rows.values())
    r = kernelseek(["stop", str(sessions[0])], env)
    assert r.returncode == 2 and "is not running" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["run", "softmax-cpu", "--arms", "autopilot,,none"], "an empty arm"),
    (["run", "softmax-cpu", "--arms", "temperature=2"], "cannot read 'temperature=2'"),
    (["run", "softmax-cpu", "--arms", "autopilot,autopilot"], "named twice"),
    (["run", "softmax-cpu", "--count", "0"], "--count must be at least 1"),
    (["run", "softmax-cpu", "--gpus", "1"], "--gpus is a Slurm option: add --on slurm"),
    (["run", "softmax-cpu", "--on", "local", "--partition", "gpu"], "is a Slurm option: add --on slurm"),
    (["run", "--resume", "x", "--count", "2"], "--resume carries on one session"),
])
def test_launch_flags_are_checked_before_anything_starts(tmp_path, monkeypatch, capsys, args, message):
    from console.cli import main

    monkeypatch.setenv("KERNELSEEK_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-xxxxxxxxxxxx")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "home" / "sessions").exists() or not list((tmp_path / "home" / "sessions").iterdir())


def test_a_refused_submission_leaves_no_empty_sessions_behind(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sbatch = bin_dir / "sbatch"  # a cluster that refuses the job, as sbatch says it
    sbatch.write_text("#!/bin/sh\necho 'sbatch: error: Batch job submission failed: Invalid generic resource "
                      "(gres) specification' >&2\nexit 1\n")
    sbatch.chmod(0o755)
    env = cli_env(None, tmp_path / "home", ANTHROPIC_API_KEY="sk-ant-test-xxxxxxxxxxxx",
                  PATH=f"{bin_dir}:/usr/bin:/bin")
    r = kernelseek(["run", "softmax-cpu", "--on", "slurm", "--count", "2", "--gpus", "9"], env)
    assert r.returncode == 1 and "sbatch refused the job" in r.stderr and "Invalid generic resource" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not list((tmp_path / "home" / "sessions").iterdir())
