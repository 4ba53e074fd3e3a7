"""Sessions of a cuda task on a (fake) four-GPU node, through the real `kernelseek` command line,
real runners and the scripted model: four launched at once land on four GPUs, each session's
commands see only its own, `kernelseek sessions` shows which; a fifth is refused (nothing is
made) until one ends, and then lands on the GPU it freed."""
from __future__ import annotations

import pytest

from fake_anthropic import FakeAnthropic, Reply, by_step, tool
from agent_helpers import kernelseek as start_runner
from sessions.inbox import Inbox
from fleet_helpers import cli_env, events, kernelseek, of_type, sessions_json, wait_for_event, wait_until, \
    write_config

pytestmark = pytest.mark.timeout(180)

# the agent's first command prints the GPU it sees; then it stays busy until stopped
SAY_GPU = by_step(Reply(tool("bash", command="echo gpu=$CUDA_VISIBLE_DEVICES pinned=$KERNELSEEK_GPU")),
                  then=Reply(tool("bash", command="sleep 30")))


def _said_gpu(session) -> str | None:
    for ev in of_type(events(session), "tool_result"):
        out = str(ev.get("output", ""))
        if "gpu=" in out:
            return out.split("gpu=", 1)[1].split()[0]
    return None


def test_four_sessions_land_on_four_gpus_and_a_fifth_waits_for_one_to_end(fake_gpus, tmp_path):
    fake = fake_gpus(4)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    with FakeAnthropic(handler=SAY_GPU) as server:
        env = fake.env(cli_env(server, home, KERNELSEEK_STEERING_LOG="off"))
        cfg = write_config(home / "agent.yaml", max_turns=50)
        r = kernelseek(["run", "rmsnorm-cuda", "--count", "4", "--config", str(cfg)], env)
        assert r.returncode == 0, r.stderr
        sessions = sorted((home / "sessions").iterdir())
        assert len(sessions) == 4
        for s in sessions:
            wait_for_event(s, lambda e: e["type"] == "session_start", timeout=60)
        places = [events(s)[0]["place"]["gpu"] for s in sessions]
        assert sorted(p["index"] for p in places) == [0, 1, 2, 3]
        assert {p["uuid"] for p in places} == set(fake.uuids)
        # every command of a session sees its own GPU, and only it
        said = [wait_until(lambda s=s: _said_gpu(s), timeout=60, what="the agent's first command") for s in sessions]
        assert said == [p["uuid"] for p in places]

        rows = sessions_json(env)
        for s, p in zip(sessions, places):
            assert rows[s.name]["gpus"] == str(p["index"]) and rows[s.name]["gpu_uuid"] == p["uuid"]
        listing = kernelseek(["sessions"], {**env, "COLUMNS": "200"}).stdout
        assert all(f"gpu {p['index']}" in listing for p in places), listing

        # a fifth is refused at once, naming who holds each GPU; no session directory is left
        before = set((home / "sessions").iterdir())
        r = kernelseek(["run", "rmsnorm-cuda", "--count", "2", "--config", str(cfg)], env)
        assert r.returncode == 4 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "2 sessions need 2 free GPUs; 0 of 4 are free" in r.stderr and sessions[0].name in r.stderr
        r = kernelseek(["run", "rmsnorm-cuda", "--session", str(home / "sessions" / "fifth"), "--config", str(cfg)],
                       env)
        assert r.returncode == 4 and "no free GPU" in r.stderr and "--gpu none" in r.stderr, r.stderr
        assert set((home / "sessions").iterdir()) == before

        # one ends: its GPU is free again, and the next session lands there
        gone = places[2]
        Inbox(sessions[2]).request_stop(author="test")  # as `kernelseek stop` asks it
        wait_until(lambda: of_type(events(sessions[2]), "session_end"), timeout=60, what="the stopped session's end")
        again = home / "sessions" / "again"
        runner = start_runner(["run", "rmsnorm-cuda", "--session", str(again), "--config", str(cfg), "--quiet"], env)
        try:
            wait_for_event(again, lambda e: e["type"] == "session_start", timeout=60)
            assert events(again)[0]["place"]["gpu"]["uuid"] == gone["uuid"]
        finally:
            for s in [*sessions, again]:
                Inbox(s).request_stop(author="test")
            runner.wait(60)


def test_a_rows_gpu_is_the_pinned_gpus_number_and_the_uuid_is_kept():
    from console.sessions_view import session_row
    from sessions.digest import RunnerView, SessionDigest
    from gpu_helpers import uuid_of

    d = SessionDigest(task="rmsnorm-cuda", pid=42, host="node7")
    d.place = {"launcher": "local", "host": "node7", "pid": 42, "gpus": uuid_of(3),
               "gpu": {"index": 3, "uuid": uuid_of(3), "name": "NVIDIA H200"}}
    row = session_row("s", "/x/s", d)
    assert row.gpus == "3" and row.gpu_uuid == uuid_of(3) and row.to_dict()["gpu_uuid"] == uuid_of(3)
    d.place = {"launcher": "slurm", "job_id": "812_1", "gpus": "1"}  # a runner that pinned nothing
    assert session_row("s", "/x/s", d, view=RunnerView("slurm", "job 812_1", True, gpus="1")).gpus == "1"
    d.place = {"gpu": {"uuid": "MIG-0f1e2d3c-aaaa"}}  # no index known: the UUID's start
    assert session_row("s", "/x/s", d).gpus == "MIG-0f1e2d3c"
