"""Launch-time key handling: the runner holds its credentials in memory, never in an environment.

Users give `kernelseek run` its key in the environment (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN,
ANTHROPIC_BASE_URL, ...). An environment block is readable by every process of the same user
through /proc/<pid>/environ, and unsetenv() does not clear it: the block the kernel shows is the
one the process was exec'd with. So before it does anything else the runner re-execs itself:

- every variable that is a credential (by name: `agent.secrets.is_secret_name`, or named in the
  config's `secret_env`) or holds one's value is taken out of the environment;
- those variables travel to the new image through a pipe (written whole and closed before the
  exec, so the new image reads to end of file), whose descriptor it inherits;
- the new image reads them, builds the API client from them and forgets the variables, marks
  itself not dumpable (PR_SET_DUMPABLE 0: its /proc files and memory are closed to other
  processes of the user), and carries on with the same pid and arguments.

What the runner starts (the agent's tools, the evaluator, Claude Code) gets the clean environment
and, in the sandbox, cannot see the runner's /proc at all.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from agent.secrets import MIN_SECRET_LEN, is_secret_name

SECRETS_FD_VAR = "KERNELSEEK_SECRETS_FD"


@dataclass
class Carried:
    """The variables taken out of the environment, and what the rest of it is."""

    secret: dict[str, str] = field(default_factory=dict)
    clean: dict[str, str] = field(default_factory=dict)

    def values(self) -> list[str]:
        """The secret values worth redacting, longest first."""
        vals = {v for v in self.secret.values() if v and len(v) >= MIN_SECRET_LEN}
        return sorted(vals, key=len, reverse=True)


def split_environment(env: Mapping[str, str], extra_names: Iterable[str] = ()) -> Carried:
    """`env` split into the credentials (by name, by `extra_names`, or by holding a credential's
    value) and the rest."""
    extra = {n.upper() for n in extra_names}
    secret = {k: v for k, v in env.items() if is_secret_name(k) or k.upper() in extra}
    values = [v for v in secret.values() if v and len(v) >= MIN_SECRET_LEN]
    for k, v in env.items():
        if k not in secret and any(s in v for s in values):
            secret[k] = v
    return Carried(secret=secret, clean={k: v for k, v in env.items() if k not in secret})


def reexec_without(carried: Carried, argv: list[str]) -> None:
    """Replace this process by `python -m console ARGV` with the clean environment; the secret
    variables follow through an inherited pipe. Does not return (raises OSError if exec fails)."""
    r, w = os.pipe()
    data = json.dumps(carried.secret).encode()
    try:
        view = memoryview(data)
        while view:  # a few KiB at most: it fits the pipe's buffer, so this never blocks
            n = os.write(w, view)
            view = view[n:]
    finally:
        os.close(w)
    os.set_inheritable(r, True)
    env = dict(carried.clean)
    env[SECRETS_FD_VAR] = str(r)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "console", *argv], env)


def receive() -> dict[str, str] | None:
    """In the re-exec'd runner: the secret variables from the pipe (None when not re-exec'd)."""
    fd_text = os.environ.pop(SECRETS_FD_VAR, None)
    if fd_text is None:
        return None
    try:
        fd = int(fd_text)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(fd)
        data = json.loads(b"".join(chunks) or b"{}")
    except (ValueError, OSError):
        return None
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else None


@contextlib.contextmanager
def lent_environment(variables: Mapping[str, str]) -> Iterator[None]:
    """`variables` in os.environ for the duration (the SDK reads its settings from there), then
    gone again. The kernel's copy of the environment block (/proc/<pid>/environ) never sees
    them: putenv changes only the process's own array, not the block it was exec'd with."""
    saved = {k: os.environ.get(k) for k in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
