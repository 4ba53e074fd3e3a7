"""Claude Code as KernelSeek's agent, in two modes.

- Driven (`kernelseek run|steer TASK --agent claude-code`, `driven.py`): the runner starts
  `claude -p` headless in the session's workspace, inside the sandbox, and turns its stream-json
  output into our events live (`sessions.importers.claude_code.ClaudeCodeTranslator`). Claude
  Code reaches the Messages API only through the runner's proxy (`proxy.py`, which holds the key;
  Claude Code holds a session token), the steerer's messages and the stop gate reach it through
  its hooks (`hook.py` talking to the runner's bridge, `bridge.py`), and it evaluates with
  `ks-evaluate`, a command that asks the runner.
- Attached (`kernelseek attach claude-code`, `attach.py`): a session the user runs in their own
  terminal; its transcript is followed live and the same hooks are installed in the project's
  `.claude/settings.local.json` while the attach runs.

`install.py` finds the `claude` executable (an npm prefix KernelSeek knows, a path in the
config, or PATH) and says how to get it when it is missing.
"""
from pathlib import Path

# the repository: what the hook and launcher Pythons import agent.claude_code from, and where a
# development install of Claude Code (.claude-code/) lives
REPO = Path(__file__).resolve().parents[2]
