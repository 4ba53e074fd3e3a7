"""The fleet on a real single-node Slurm: eight sessions of attention-cpu as one job array.

Everything is real but the model: slurmctld, slurmd and munged started by the test setup, sbatch,
the `kernelseek` command line, the runner in each batch job, the evaluator, and the fleet view
driven by the Pilot. The model is a scripted Messages API server in this process (the jobs reach
it over loopback through ANTHROPIC_BASE_URL, exported to them by sbatch).
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from fake_anthropic import FakeAnthropic
from fleet_helpers import (STEERER, WORKER, cli_env, current_job, events, kernelseek, launch_record, of_type,
                           sessions_json, wait_for_event, wait_until, write_config)

# one worker runs every module that uses the session's Slurm (pytest-xdist `loadgroup`): one cluster, started once
pytestmark = [pytest.mark.timeout(240), pytest.mark.xdist_group("slurm")]


@dataclass
class Array:
    home: Path
    env: dict
    sessions: list[Path]
    server: FakeAnthropic
    job: str


@pytest.fixture(scope="module")
def array8(slurm_cluster, tmp_path_factory):
    home = tmp_path_factory.mktemp("fleet-home")
    os.chmod(home, 0o700)
    server = FakeAnthropic(handler=WORKER).start()
    cfg = write_config(home / "agent.yaml", max_turns=400)
    env = cli_env(server, home, **slurm_cluster.env, KERNELSEEK_STEERING_LOG="off")
    r = kernelseek(["run", "attention-cpu", "--on", "slurm", "--count", "8", "--arms", "autopilot,none",
                    "--time", "30", "--config", str(cfg)], env)
    assert r.returncode == 0, r.stderr
    sessions = sorted(p for p in (home / "sessions").iterdir())
    assert len(sessions) == 8
    job = current_job(sessions[0]).split("_")[0]
    for s in sessions:
        wait_for_event(s, lambda e: e["type"] == "session_start", timeout=60)
    yield Array(home, env, sessions, server, job)
    slurm_cluster.cancel_all()
    server.stop()


def test_eight_sessions_are_one_array_each_private_with_its_job_recorded(array8, slurm_cluster):
    listing = kernelseek(["sessions"], {**array8.env, "COLUMNS": "80"}).stdout
    assert all(f"job {array8.job}_{i}" in listing for i in range(8)), listing
    assert max(len(line) for line in listing.splitlines()) <= 80
    for i, s in enumerate(array8.sessions):
        rec = launch_record(s)
        assert rec["launcher"] == "slurm" and rec["jobs"][-1]["job_id"] == f"{array8.job}_{i}"
        assert rec["arm"] == ("autopilot" if i % 2 == 0 else "none")
        assert (s.stat().st_mode & 0o777) == 0o700
        start = events(s)[0]
        assert start["place"]["job_id"] == f"{array8.job}_{i}" and start["place"]["launcher"] == "slurm"
        assert start["config"]["autopilot"] == (i % 2 == 0)
    squeue = slurm_cluster.run("squeue", "-h", "-o", "%i %T").stdout.split()
    assert f"{array8.job}_7" in squeue  # one array: every element is the same job
    manifest = json.loads((array8.home / "batches" / array8.sessions[0].name[:-2] / "batch.json").read_text())
    assert manifest["job_id"] == array8.job and len(manifest["sessions"]) == 8


def test_sessions_lists_all_with_job_node_state_and_what_needs_you(array8):
    rows = wait_until(lambda: (r := sessions_json(array8.env)) and all(v["state"] == "running" for v in r.values()) and r,
                      timeout=30, what="every session running")
    assert len(rows) == 8
    for i, s in enumerate(array8.sessions):
        row = rows[s.name]
        assert row["job_id"] == f"{array8.job}_{i}" and row["where"].startswith(f"job {array8.job}_{i} on ")
        assert row["node"] and "RUNNING" in row["reason"] and row["goal"] == 2.0
    # the sessions without autopilot wait for the steerer at their start decision point
    assert any(rows[s.name]["group"] == "needs you" for i, s in enumerate(array8.sessions) if i % 2)


def test_a_session_stopped_from_kernelseek_ends_stopped_and_its_job_completes(array8, slurm_cluster):
    s = array8.sessions[0]
    r = kernelseek(["stop", str(s), "--timeout", "30"], array8.env)
    assert r.returncode == 0 and "stopped" in r.stdout, r.stderr
    end = of_type(events(s), "session_end")[-1]
    assert end["reason"] == "stopped" and end["by"] == "stop_request" and end["inbox_id"]
    row = wait_until(lambda: (x := sessions_json(array8.env)[s.name])["state"] == "stopped" and x,
                     timeout=20, what="stopped")
    assert row["reason"].startswith("stop requested") and row["group"] == "ended"
    final = wait_until(lambda: slurm_cluster.run("squeue", "-h", "--states=all", "-j", current_job(s), "-o", "%T",
                                                 check=False).stdout.strip() in ("COMPLETED",) and "COMPLETED",
                       timeout=20, what="the job completing")
    assert final == "COMPLETED"  # the runner ended its session itself: no cancel was needed


def test_a_job_scancelled_outside_kernelseek_shows_the_schedulers_reason(array8, slurm_cluster):
    s = array8.sessions[1]
    slurm_cluster.run("scancel", current_job(s))
    row = wait_until(lambda: (x := sessions_json(array8.env)[s.name])["state"] == "cancelled" and x,
                     timeout=30, what="the cancel seen")
    assert "CANCELLED" in row["reason"] and row["group"] == "ended"


def test_a_resumed_session_is_resubmitted_and_continues_its_log(array8, slurm_cluster):
    s = array8.sessions[2]
    first_job = current_job(s)
    slurm_cluster.run("scancel", first_job)
    wait_until(lambda: sessions_json(array8.env)[s.name]["state"] == "cancelled", timeout=30, what="cancelled")
    before = events(s)
    r = kernelseek(["run", "--resume", str(s)], array8.env)  # the session's own launcher: Slurm
    assert r.returncode == 0 and "Slurm job" in r.stdout, r.stderr
    assert current_job(s) != first_job and len(launch_record(s)["jobs"]) == 2
    resume = wait_for_event(s, lambda e: e["type"] == "session_resume", timeout=60)
    assert resume["seq"] == before[-1]["seq"] + 1 and resume["place"]["job_id"] == current_job(s)
    wait_for_event(s, lambda e: e["type"] == "tool_call" and e["seq"] > resume["seq"], timeout=30)
    after = events(s)
    assert after[: len(before)] == before  # the same log, continued
    row = wait_until(lambda: (x := sessions_json(array8.env)[s.name])["state"] == "running" and x, timeout=30,
                     what="running again")
    assert row["job_id"] == current_job(s)


@pytest.mark.anyio
async def test_the_fleet_view_shows_the_array_and_a_question_sent_from_it_arrives_exactly_once(array8, slurm):
    from console.app import ConsoleApp
    from console.sessions_view import NEEDS
    from console_helpers import wait_for

    s = array8.sessions[3]  # no autopilot: its start decision point waits for the steerer
    app = ConsoleApp.for_fleet(array8.home / "sessions")  # the shipped bank ranks for any kind
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.loaded and len(screen.rows) == 8, timeout=20)
        await wait_for(pilot, lambda: all(r.job_id for r in screen.rows.values()), timeout=20)
        for p in array8.sessions:  # (a resumed one runs as a job of its own)
            assert screen.rows[p.name].where.startswith(f"job {current_job(p)} on ")
        await wait_for(pilot, lambda: screen.rows[s.name].group == NEEDS, timeout=20)
        await pilot.press("home")
        for _ in range(8):
            if screen.table.current.name == s.name:
                break
            await pilot.press("down")
        assert screen.table.current.name == s.name and screen.table.current.group == NEEDS
        await pilot.press("1")
        await pilot.press("1")  # a second press is refused: the question is on its way
        said = [n.message for n in app._notifications]
        assert any(m.startswith(f"sent to {s.name}") for m in said), (said, screen.table.current)
        await wait_for(pilot, lambda: (s / "inbox.jsonl").exists(), timeout=5)
        inbox = [json.loads(line) for line in (s / "inbox.jsonl").read_text().splitlines()]
        assert len(inbox) == 1 and inbox[0]["source"] == "bank"
        sent = inbox[0]
        ack = wait_for_event(s, lambda e: e["type"] == "human_message" and e.get("inbox_id") == sent["id"], timeout=30)
        assert ack["decision_point"] == sent["decision_point"] and ack["text"] == sent["text"]
        await wait_for(pilot, lambda: screen.rows[s.name].undelivered == 0, timeout=10)
    # exactly once: one acknowledgement in the log, and the model saw the words once per request
    assert len([e for e in events(s) if e.get("inbox_id") == sent["id"]]) == 1
    wait_until(lambda: any(sent["text"] in json.dumps(r.messages) for r in array8.server.requests), timeout=20,
               what="the question reaching the model")
    for req in array8.server.requests:
        body = json.dumps(req.messages)
        assert body.count(json.dumps(sent["text"])[1:-1]) <= 1
    assert STEERER in json.dumps([r.messages for r in array8.server.requests if sent["text"] in json.dumps(r.messages)])


class StandInApp:
    """The console as steer opens it (its own tests drive the real app): records, then 'quits'."""

    opened: list = []

    def __init__(self, paths, mode="live", *, runner=None, **kw):
        self.paths, self.mode, self.runner, self.root = paths, mode, runner, None

    @classmethod
    def for_fleet(cls, root, **kw):
        app = cls(None, "fleet")
        app.root = root
        return app

    def run(self):
        StandInApp.opened.append(self)


def test_steer_on_slurm_waits_for_the_job_opens_the_console_and_leaves_the_job_running(
        slurm, fake, tmp_path, monkeypatch, capsys):
    import console.app
    from console.cli import build_parser
    from console.commands import steer

    monkeypatch.setattr(console.app, "ConsoleApp", StandInApp)
    StandInApp.opened = []
    fake(handler=WORKER)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("KERNELSEEK_HOME", str(home))
    cfg = write_config(home / "agent.yaml", max_turns=100)
    args = build_parser().parse_args(["steer", "softmax-cpu", "--on", "slurm", "--gpus", "1", "--config", str(cfg)])
    assert steer.run(args) == 0
    (app,) = StandInApp.opened
    assert app.mode == "live" and app.runner.job_id == current_job(app.paths.root)
    assert events(app.paths.root)[0]["type"] == "session_start"  # it waited for the runner to start
    assert "The agent goes on (job " in capsys.readouterr().err
    r = kernelseek(["stop", str(app.paths.root)], {**os.environ})
    assert r.returncode == 0 and "stopped" in r.stdout, r.stderr

    args = build_parser().parse_args(["steer", "softmax-cpu", "--on", "slurm", "--count", "2", "--config", str(cfg)])
    assert steer.run(args) == 0
    fleet = StandInApp.opened[-1]
    assert fleet.mode == "fleet" and fleet.root == home / "sessions"
    for s in sorted((home / "sessions").iterdir())[1:]:
        wait_for_event(s, lambda e: e["type"] == "session_start", timeout=60)
        assert kernelseek(["stop", str(s)], {**os.environ}).returncode == 0
