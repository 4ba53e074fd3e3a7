"""`kernelseek steer`, `stop` and `start`: the runner as a detached child, the console attached.

The console itself is replaced by a stand-in that watches the log (its own tests drive the real
app); everything else is real: the command, the spawned `kernelseek run`, the SDK, the evaluator.
"""
from __future__ import annotations

import argparse
import os
import signal
import time

import pytest

from agent_helpers import events, of_type
from fake_anthropic import Reply, by_step, text, tool

BUSY = by_step(
    Reply(text("Measuring first."), tool("bash", command="sleep 30")),
    then=Reply(tool("bash", command="sleep 30")),
)


class StandInApp:
    """Records how steer opened the console, waits until the runner is at work, then 'quits'."""

    opened: list = []

    def __init__(self, paths, mode="live", *, runner=None, **kw):
        self.paths, self.mode, self.runner = paths, mode, runner

    def run(self):
        StandInApp.opened.append(self)
        if self.mode != "live":
            return
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if of_type(events(self.paths.root), "tool_call"):
                return
            time.sleep(0.05)
        raise AssertionError("the runner never called a tool")


@pytest.fixture
def stand_in(monkeypatch):
    import console.app

    StandInApp.opened = []
    monkeypatch.setattr(console.app, "ConsoleApp", StandInApp)
    return StandInApp


def test_steer_starts_a_detached_runner_that_outlives_the_console_and_stop_ends_it(
        fake, stand_in, tmp_path, capsys, monkeypatch):
    from console.commands import steer, stop

    fake(handler=BUSY)
    code = steer.steer("attention-cpu", sessions_dir=str(tmp_path))
    assert code == 0
    (app,) = stand_in.opened
    assert app.mode == "live" and app.runner is not None
    session = app.paths
    assert session.root.parent == tmp_path and session.is_running()  # the console quit, the agent did not
    assert app.runner.poll() is None
    assert "kernelseek console" in capsys.readouterr().err
    start = events(session.root)[0]
    assert start["type"] == "session_start" and start["task"] == "attention-cpu"
    assert start["pid"] == app.runner.pid and os.getpgid(app.runner.pid) == app.runner.pid  # own session

    assert stop.run(argparse.Namespace(session=str(session.root), timeout=20.0, sessions_dir=None)) == 0
    assert app.runner.wait(10) is not None and not session.is_running()
    assert of_type(events(session.root), "session_end")[-1]["reason"] == "stopped"
    with pytest.raises(stop.StopError, match="not running"):
        stop.run(argparse.Namespace(session=str(session.root), timeout=1.0, sessions_dir=None))


def test_steer_without_credentials_or_with_a_bad_task_is_one_error_and_no_session(tmp_path, monkeypatch):
    from console.commands import steer

    with pytest.raises(Exception, match="ANTHROPIC_API_KEY") as exc:
        steer.steer("attention-cpu", sessions_dir=str(tmp_path))
    assert exc.value.exit_code == 2
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-xxxxxxxxxxxx")
    with pytest.raises(Exception, match="unknown task 'no-such-task'") as exc:
        steer.steer("no-such-task", sessions_dir=str(tmp_path))
    assert exc.value.exit_code == 2
    assert list(tmp_path.iterdir()) == []


def test_steer_resume_refuses_a_running_session_and_carries_on_a_stopped_one(fake, stand_in, tmp_path,
                                                                             monkeypatch):
    from console.commands import steer, stop

    fake(handler=BUSY)
    steer.steer("attention-cpu", sessions_dir=str(tmp_path))
    first = stand_in.opened[-1]
    with pytest.raises(steer.SteerError, match="running already"):
        steer.steer(None, resume=str(first.paths.root))
    first.runner.send_signal(signal.SIGKILL)  # a crash
    first.runner.wait(10)
    steer.steer(None, resume=str(first.paths.root))
    again = stand_in.opened[-1]
    assert again.paths.root == first.paths.root and again.runner.pid != first.runner.pid
    assert of_type(events(first.paths.root), "session_resume")
    stop.run(argparse.Namespace(session=str(first.paths.root), timeout=20.0, sessions_dir=None))
    again.runner.wait(10)


def test_start_without_a_key_replays_the_bundled_example(stand_in, capsys):
    from console.commands import start

    assert start.run(argparse.Namespace(task=None, autopilot=False, model=None, sessions_dir=None)) == 0
    (app,) = stand_in.opened
    assert app.mode == "replay" and app.paths.root == start.EXAMPLE
    assert "replays the bundled example" in capsys.readouterr().err


def test_start_with_a_key_steers_the_task_this_machine_can_run(fake, stand_in, tmp_path, monkeypatch):
    from console.commands import start, stop

    fake(handler=BUSY)
    assert start.run(argparse.Namespace(task=None, autopilot=False, model=None, sessions_dir=str(tmp_path))) == 0
    (app,) = stand_in.opened
    expected = "attention-fwd-sm90" if start.hopper_gpu_present() else "attention-cpu"
    assert events(app.paths.root)[0]["task"] == expected and app.mode == "live"
    stop.run(argparse.Namespace(session=str(app.paths.root), timeout=20.0, sessions_dir=None))
    app.runner.wait(10)
