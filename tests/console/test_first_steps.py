"""First steps without a key: the bundled example is a listed session, the README's "First five
minutes" runs as written, and mining before any steering log exists is no error."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = "console/examples/attention-cpu"


def kernelseek(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "KERNELSEEK_HOME": str(home), "COLUMNS": "80"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "console", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=env)


@pytest.fixture
def clone_dir(tmp_path) -> Path:
    """A working directory that looks like the clone's root (its console/ folder), where the
    README's relative paths resolve and its output files land."""
    work = tmp_path / "clone"
    work.mkdir()
    (work / "console").symlink_to(REPO / "console")
    return work


def test_sessions_lists_the_bundled_example_with_its_path(clone_dir, tmp_path):
    done = kernelseek("sessions", cwd=clone_dir, home=tmp_path / "home")
    assert done.returncode == 0
    assert "no sessions under" in done.stdout
    assert re.search(rf"kernelseek replay \S*{EXAMPLE}\n", done.stdout)
    # from the clone's root (where the README is followed) the path is the README's
    done = kernelseek("sessions", cwd=REPO, home=tmp_path / "home")
    assert f"kernelseek replay {EXAMPLE}\n" in done.stdout
    # machine output stays the sessions under the root; the example's path on its own
    assert json.loads(kernelseek("sessions", "--json", cwd=clone_dir, home=tmp_path / "home").stdout) == []
    path = kernelseek("sessions", "--example-path", cwd=clone_dir, home=tmp_path / "home").stdout.strip()
    assert Path(path) == (REPO / EXAMPLE).resolve()


def test_mining_the_steering_log_before_it_exists_is_no_error(clone_dir, tmp_path):
    home = tmp_path / "home"
    done = kernelseek("mine", str(home / "steering.jsonl"), "--out", "mined.yaml", cwd=clone_dir, home=home)
    assert done.returncode == 0, done.stderr
    assert "no steering log at" in done.stderr and "session" not in done.stderr.split("(")[0]
    assert (clone_dir / "mined.yaml").is_file()
    done = kernelseek("mine", "nothing-here.jsonl", "--out", "mined.yaml", cwd=clone_dir, home=home)
    assert done.returncode == 2 and "no such file, session directory or session name" in done.stderr


def readme_five_minutes() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## First five minutes", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_first_five_minutes_run_as_written(clone_dir, tmp_path):
    """Every command of the section, as written (the console ones are driven by the Pilot in
    test_example_session; the evaluation of the example's kernel is checked there too)."""
    commands = readme_five_minutes()
    assert commands[0] == "source .venv/bin/activate"
    ran = 0
    for line in commands[1:]:
        argv = shlex.split(line)
        assert argv[0] == "kernelseek"
        if argv[1] in ("start", "replay", "eval"):  # the console; a timed evaluation
            assert argv[1] != "replay" or (clone_dir / argv[2] / "events.jsonl").is_file()
            assert argv[1] != "eval" or (clone_dir / argv[argv.index("--candidate") + 1]).is_file()
            continue
        done = kernelseek(*argv[1:], cwd=clone_dir, home=tmp_path / "home")
        assert done.returncode == 0, f"{line}: {done.stderr}"
        assert "Traceback" not in done.stderr
        ran += 1
    assert ran == 4
    assert (clone_dir / "mined.yaml").is_file() and (clone_dir / "mined.md").is_file()
