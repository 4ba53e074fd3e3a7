"""The `kernelseek` command line: help everywhere, fast and light, one-line errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench_sessions import HELP_LINE_S, help_time
from budgets import within
from console.cli import COMMANDS, main

KS = [sys.executable, "-m", "console"]


def run(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*KS, *args], capture_output=True, text=True, timeout=60, **kw)


def test_top_level_help_lists_every_subcommand():
    r = run("--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: kernelseek")
    for name in COMMANDS:
        assert name in r.stdout


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_subcommand_has_help(name, capsys):
    with pytest.raises(SystemExit) as exc:
        main([name, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: kernelseek {name}")


def test_bank_actions_have_help(capsys):
    for action in ("validate", "list", "show", "suggest"):
        with pytest.raises(SystemExit) as exc:
            main(["bank", action, "--help"])
        assert exc.value.code == 0
        assert f"kernelseek bank {action}" in capsys.readouterr().out


def test_version_is_the_installed_one_from_pyproject():
    import tomllib
    from pathlib import Path

    declared = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["version"]
    r = run("--version")
    assert r.returncode == 0 and r.stdout == f"kernelseek {declared}\n"


def test_version_outside_an_installation_says_so(monkeypatch):
    import importlib.metadata

    from console import cli

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert cli.installed_version() == "(not installed: run from a checkout)"


def test_help_imports_nothing_heavy():
    code = ("import sys, time\nt = time.perf_counter()\nfrom console.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('textual', 'anthropic', 'numpy', 'rich', 'watchfiles', 'yaml')"
            " if m in sys.modules]\nprint('HEAVY', heavy, file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in r.stderr


@pytest.mark.bench
def test_help_is_fast():
    figures = help_time()
    print(f"\nkernelseek --help: {figures['best_ms']} ms")
    assert figures["best_ms"] < within(HELP_LINE_S) * 1000  # the regression line, inside the promise


def test_unknown_subcommand_is_a_usage_error():
    r = run("frobnicate")
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_sessions_lists_json_and_handles_an_empty_root(tmp_path):
    r = run("sessions", "--sessions-dir", str(tmp_path))
    assert r.returncode == 0 and "no sessions" in r.stdout
    from sessions.layout import create_session
    from sessions.log import SessionWriter

    sp = create_session(tmp_path, task="softmax-cpu")
    with SessionWriter(sp.events) as w:
        w.append("session_start", task="softmax-cpu", model="m")
    r = run("sessions", "--sessions-dir", str(tmp_path), "--json")
    assert r.returncode == 0
    assert json.loads(r.stdout)[0]["task"] == "softmax-cpu"
    r = run("sessions", "--sessions-dir", str(tmp_path))
    assert "softmax-cpu" in r.stdout and "lost" in r.stdout  # no runner holds it and it has no end


def test_run_and_steer_take_the_same_agent_flags_with_the_same_defaults():
    """Declared once (console.commands.launch_options): the same options, the same defaults,
    one --grace default for run, steer and attach (the config's grace_s, 30 s)."""
    from agent.config import AUTOPILOT_GRACE_S, AgentConfig, load_config
    from console.cli import build_parser

    parser = build_parser()
    run_args = vars(parser.parse_args(["run", "attention-cpu"]))
    steer_args = vars(parser.parse_args(["steer", "attention-cpu"]))
    shared = set(run_args) & set(steer_args)
    assert {"agent", "model", "autopilot", "grace", "max_turns", "max_cost", "max_hours", "config",
            "unsafe_no_sandbox", "session", "resume", "on", "count", "arms", "gpu"} <= shared
    shared -= {"command", "_module"}
    assert {k: run_args[k] for k in shared} == {k: steer_args[k] for k in shared}
    assert run_args["grace"] is None is vars(parser.parse_args(["attach", "claude-code"]))["grace"]
    assert AgentConfig().grace_s == AUTOPILOT_GRACE_S == 30.0
    assert load_config(None, grace_s=run_args["grace"]).grace_s == 30.0
    assert load_config(None, grace_s=0.0).grace_s == 0.0
