"""What an agent is to the session host: five verbs, whatever the agent underneath.

The host (agent/host.py) owns the session: the log and `emit`, the inbox and its exactly-once
delivery, the limits, the stop gate, evaluations, the sandbox. An agent adapter owns one way of
running a model with tools: the native loop on the Messages API (agent/native.py), or Claude
Code driven headless (agent/claude_code/driven.py). The host never branches on which it has.

The verbs, each called by the host:

- `start(host)`: a new session. Prepare (the workspace already holds the candidate) and return
  the fields `session_start` carries about the agent: `agent`, `model`, `prompt`, and anything
  the agent adds (its version, its own session id).
- `resume(host, events)`: continue a session from its log (after a crash, a kill -9, or to go
  on after it ended). The host has replayed `events` through `observe`; return the fields of
  `session_resume`.
- `events()`: run live until the session should end, writing everything the agent does as our
  events through `host.emit` as it happens; return the end reason (`goal_met`, a limit, `stopped`).
- `deliver(messages)`: the host acknowledged these `human_message` events (the commit point:
  fsynced before this call); hand them to the model at the agent's next boundary — the next
  request for the native agent, the next tool boundary or turn end for Claude Code.
- `interrupt()`: the steerer pressed `!`: stop the running tool, stream or evaluation now (the
  host has set `host.cancel`); the interrupt's message follows through `deliver`.

`observe(ev)` is told every event the host writes or replays, in order (the native agent folds
its conversation from them). `turns` is how many model turns the session holds (max_turns).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.host import SessionHost


class AgentError(Exception):
    """The agent cannot run (not installed, a bad setting): one line, exit 2."""

    exit_code = 2


class Agent(ABC):
    name: str = "agent"

    @abstractmethod
    def start(self, host: "SessionHost") -> dict:
        """A new session; returns session_start's agent fields."""

    @abstractmethod
    def resume(self, host: "SessionHost", events: list[dict]) -> dict:
        """Continue from the log; returns session_resume's agent fields."""

    @abstractmethod
    def events(self) -> str:
        """Run live, emitting our events through the host; returns the end reason."""

    @abstractmethod
    def deliver(self, messages: list[dict]) -> None:
        """Hand acknowledged human_message events to the model at the next boundary."""

    @abstractmethod
    def interrupt(self) -> None:
        """Stop what runs now (the host has set its cancel event)."""

    def observe(self, ev: dict) -> None:
        """Every event written or replayed, in order (default: nothing)."""

    def close(self) -> None:
        """The session is over: release processes and files (default: nothing)."""

    @property
    def turns(self) -> int:
        """Model turns so far (for max_turns)."""
        return 0
