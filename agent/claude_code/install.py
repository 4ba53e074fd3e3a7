"""Finding Claude Code: the `claude` executable of the npm package `@anthropic-ai/claude-code`.

Looked for, in order: the config's `claude_code_path`; `$KERNELSEEK_CLAUDE_CODE`; the npm prefixes
KernelSeek knows (`$KERNELSEEK_HOME/claude-code`, `.claude-code` in the repository — what
`npm install --prefix DIR @anthropic-ai/claude-code` makes); then `claude` on PATH.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from agent.adapter import AgentError
from agent.claude_code import REPO
from sessions.layout import kernelseek_home

PACKAGE = "@anthropic-ai/claude-code"


def install_hint() -> str:
    return (f"Claude Code is not installed: run `npm install --prefix {kernelseek_home() / 'claude-code'} "
            f"{PACKAGE}` (or set claude_code_path in the agent config to a `claude` executable)")


def prefixes() -> list[Path]:
    """npm prefixes where KernelSeek looks for the package."""
    return [kernelseek_home() / "claude-code", REPO / ".claude-code"]


def find_claude(configured: str | None = None) -> Path:
    """The `claude` executable to run; AgentError with the install line when there is none."""
    for given in (configured, os.environ.get("KERNELSEEK_CLAUDE_CODE")):
        if given:
            p = Path(given).expanduser()
            if p.is_file() and os.access(p, os.X_OK):
                return p.resolve()
            raise AgentError(f"claude_code_path {p}: not an executable file")
    for prefix in prefixes():
        p = prefix / "node_modules" / ".bin" / "claude"
        if p.exists() and os.access(p, os.X_OK):
            return p.resolve()
    on_path = shutil.which("claude")
    if on_path:
        return Path(on_path).resolve()
    raise AgentError(install_hint())


@lru_cache(maxsize=8)
def claude_version(claude: Path) -> str:
    """The version Claude Code reports (`claude --version`), e.g. "2.1.197"; "" if it says none."""
    try:
        r = subprocess.run([str(claude), "--version"], capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AgentError(f"{claude}: cannot run it ({exc})") from None
    m = re.search(r"\d+\.\d+\.\d+", r.stdout)
    return m.group(0) if m else ""
