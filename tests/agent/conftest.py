"""Fixtures for the runner's tests: the fake Messages API, with a clean Anthropic environment."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from api_fixtures import anthropic_env, fake  # noqa: E402,F401  (fixtures)
