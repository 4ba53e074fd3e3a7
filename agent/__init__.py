"""The agent side: the session host (log, inbox delivery, stop gate, limits, sandbox, keys) and the
agents it drives — the native loop on the Anthropic API with its tools, and Claude Code (driven
headless, or attached to the user's own session); autopilot."""
