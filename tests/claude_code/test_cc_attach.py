"""Attach mode: an interactive Claude Code session (its real TUI, in a pty the test holds), and
`kernelseek attach claude-code` delivering the console's question into it through hooks."""
from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from agent_helpers import API_KEY, REPO, cli_env, events, of_type
from cc_helpers import MODEL, bash, wait_until
from fake_anthropic import FakeAnthropic, Reply, by_step, text
from sessions.inbox import Inbox

USER_SETTINGS = b'{\n    "permissions": {"allow": ["Bash(ls:*)"]},\n    "env": {"FOO": "bar"}\n}\n'


class Terminal:
    """A program in a pseudo-terminal: keys in, the screen's text (escapes stripped) out."""

    def __init__(self, argv: list[str], *, cwd: Path, env: dict) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen(argv, cwd=str(cwd), env=env, stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True)
        os.close(slave)
        self.master = master
        self.raw = bytearray()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                return
            if not data:
                return
            self.raw.extend(data)

    def text(self) -> str:
        plain = re.sub(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>]", b"",
                       bytes(self.raw))
        return plain.decode("utf-8", "replace")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait(10)
        os.close(self.master)


def test_attach_delivers_a_question_into_an_interactive_session_and_leaves_the_settings_as_they_were(
        claude, tmp_path):
    home, project, sessions = tmp_path / "home", tmp_path / "project", tmp_path / "sessions"
    config_dir = home / ".claude"
    config_dir.mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.local.json"
    settings.write_bytes(USER_SETTINGS)
    # a Claude Code that has been set up before: onboarding done, this key approved, the project trusted
    (config_dir / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "theme": "dark",
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}))
    question = "Which scenario is the slowest, by the evaluator's table? (q-attach)"
    steps = by_step(Reply(text("First a look around."), bash("sleep 2; echo one", "one")),
                    Reply(text("A longer measurement."), bash("sleep 6; echo two", "two")),
                    then=Reply(text("Answered: the decode scenario.")))

    def model(req):  # the TUI also asks for a session title: a request without tools
        return Reply(text("Attach test")) if not req.tool_names else steps(req)

    with FakeAnthropic(handler=model) as server:
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config_dir),
               "TERM": "xterm-256color", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", **server.env(API_KEY)}
        tui = Terminal([str(claude), "--allowedTools", "Bash", "--model", MODEL], cwd=project, env=env)
        attach = None
        try:
            wait_until(lambda: "?" in tui.text() or "❯" in tui.text(), timeout=30)
            time.sleep(0.5)
            tui.type("measure the kernel")
            time.sleep(0.3)
            tui.type("\r")
            wait_until(lambda: list(config_dir.glob("projects/*/*.jsonl")), timeout=30)
            attach_env = cli_env(None, tmp_path / "ks", HOME=str(home), CLAUDE_CONFIG_DIR=str(config_dir))
            attach = subprocess.Popen([sys.executable, "-m", "console", "attach", "claude-code", "--latest",
                                       "--task", "attention-cpu", "--sessions-dir", str(sessions)],
                                      env=attach_env, cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True)
            session = wait_until(lambda: [d for d in sessions.glob("*") if (d / "events.jsonl").exists()], 30)[0]
            wait_until(lambda: b"agent.claude_code.hook" in settings.read_bytes(), timeout=30)
            call = wait_until(lambda: [e for e in of_type(events(session), "tool_call")
                                       if "sleep 6" in e["input"].get("command", "")], timeout=60)[0]
            posted = Inbox(session).post(question)
            wait_until(lambda: len(server.requests) >= 4 and "Answered" in tui.text(), timeout=60)
            attach.send_signal(signal.SIGINT)
            out, err = attach.communicate(timeout=30)
        finally:
            if attach is not None and attach.poll() is None:
                attach.kill()
            tui.close()
    assert attach.returncode == 0, err
    # the question reached Claude Code right after the running tool call, once, and stayed once
    main = [r for r in server.requests if r.tool_names]
    held = [r.all_text().count(question) for r in main]
    assert held == [0, 0] + [1] * (len(main) - 2), held
    assert question in json.dumps(main[2].last_user())
    evs = events(session)
    (ack,) = of_type(evs, "human_message")[-1:]
    assert ack["inbox_id"] == posted.id and ack["seq"] > call["seq"]
    assert [e["input"]["command"] for e in of_type(evs, "tool_call")] == ["sleep 2; echo one", "sleep 6; echo two"]
    start = evs[0]
    assert start["recorded_by"] == "kernelseek attach" and start["agent"] == "claude-code" and start["task"] == "attention-cpu"
    assert of_type(evs, "session_end")[-1]["reason"] == "detached"
    # the hooks are gone and the user's settings are byte for byte what they were
    assert settings.read_bytes() == USER_SETTINGS
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.local.json"]


def test_settings_hooks_go_in_and_come_out_exactly(tmp_path):
    from agent.claude_code.settings import SettingsHooks

    cmd = "python3 -m agent.claude_code.hook --socket /tmp/ks-x/bridge.sock hook"
    timeouts = {"PostToolUse": 60, "Stop": 60}
    # no .claude folder at all: it is made, and goes again
    bare = tmp_path / "bare"
    bare.mkdir()
    h = SettingsHooks(bare, cmd, timeouts=timeouts)
    h.install()
    data = json.loads((bare / ".claude" / "settings.local.json").read_text())
    assert data["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == cmd
    h.remove()
    assert list(bare.iterdir()) == []
    # the user's file, with their own hooks: restored byte for byte
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    theirs = (b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},'
              b' "model": "x"}')
    (proj / ".claude" / "settings.local.json").write_bytes(theirs)
    h = SettingsHooks(proj, cmd, timeouts=timeouts)
    h.install()
    stops = json.loads((proj / ".claude" / "settings.local.json").read_text())["hooks"]["Stop"]
    assert [s["hooks"][0]["command"] for s in stops] == ["notify-send done", cmd]
    h.remove()
    assert (proj / ".claude" / "settings.local.json").read_bytes() == theirs
    # edited by the user while attached: their change stays, only ours goes
    h = SettingsHooks(proj, cmd, timeouts=timeouts)
    h.install()
    edited = json.loads((proj / ".claude" / "settings.local.json").read_text())
    edited["model"] = "y"
    (proj / ".claude" / "settings.local.json").write_text(json.dumps(edited))
    h.remove()
    after = json.loads((proj / ".claude" / "settings.local.json").read_text())
    assert after == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}, "model": "y"}


def test_hooks_left_by_a_killed_attach_are_cleaned_at_the_next_and_do_nothing_meanwhile(tmp_path):
    from agent.claude_code.settings import SettingsHooks

    proj = tmp_path / "proj"
    proj.mkdir()
    dead = f"PYTHONPATH={REPO} {sys.executable} -m agent.claude_code.hook --socket {tmp_path}/gone.sock hook"
    killed = SettingsHooks(proj, dead, timeouts={"PostToolUse": 60})
    killed.install()  # ... and never removed
    # meanwhile a hook with nobody to answer exits 0 and prints nothing: the user's session is unharmed
    r = subprocess.run(dead, shell=True, input='{"hook_event_name": "PostToolUse"}', capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and r.stdout == ""
    live_sock = tmp_path / "live.sock"
    live_sock.touch()
    live = f"python3 -m agent.claude_code.hook --socket {live_sock} hook"
    h = SettingsHooks(proj, live, timeouts={"PostToolUse": 60})
    h.install()
    cmds = [e["hooks"][0]["command"] for e in
            json.loads((proj / ".claude" / "settings.local.json").read_text())["hooks"]["PostToolUse"]]
    assert cmds == [live]
