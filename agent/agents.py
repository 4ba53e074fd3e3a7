"""The agents a session can run, by the name `--agent` takes (and session_start.agent records)."""
from __future__ import annotations

from agent.adapter import Agent, AgentError

# --agent NAME -> the name session_start records
AGENT_NAMES = {"native": "kernelseek", "claude-code": "claude-code"}


def make_agent(name: str, *, config, client, secrets: list[str]) -> Agent:
    """The adapter for `name` (an --agent choice, or a session_start.agent when resuming).
    `client` is the Anthropic SDK client built from the runner's credentials."""
    if name in ("native", "kernelseek"):
        from agent.model import ModelClient
        from agent.native import NativeAgent

        return NativeAgent(ModelClient(client, config), config)
    if name == "claude-code":
        from agent.claude_code.driven import ClaudeCodeAgent

        return ClaudeCodeAgent(config=config, client=client, secrets=secrets)
    raise AgentError(f"no agent named {name!r} (known: {', '.join(AGENT_NAMES)})")
