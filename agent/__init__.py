"""The agent runner: the loop on the Anthropic API, its tools, the stop gate, the inbox, autopilot."""
