"""Keeping credentials away from the agent's tools and out of the session log.

Two defences. The environment the tools (and the evaluator's child) get is scrubbed: every
variable whose name looks like a credential (…KEY…, …TOKEN…, …SECRET…, …PASSWORD…,
…CREDENTIAL…, …AUTH…, …COOKIE…, any ANTHROPIC_*) is dropped, and so is any variable whose value
holds one of the secret values. And every string written to the log passes a `Redactor` that
replaces the secret values (and anything shaped like an Anthropic key) by `[redacted]`.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|COOKIE|AUTH|PRIVATE",
                          re.IGNORECASE)
_SECRET_PREFIXES = ("ANTHROPIC_", "AWS_", "AZURE_", "GOOGLE_", "GCLOUD_", "OPENAI_", "HF_", "HUGGING")
_KEY_SHAPE = re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}")
REDACTED = "[redacted]"
MIN_SECRET_LEN = 8


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return bool(_SECRET_NAME.search(upper)) or upper.startswith(_SECRET_PREFIXES)


def secret_values(env: Mapping[str, str] | None = None, extra: Iterable[str | None] = ()) -> list[str]:
    """The values worth hiding: those of secret-named variables, plus `extra` (the client's key)."""
    env = os.environ if env is None else env
    values = {v for k, v in env.items() if is_secret_name(k) and v and len(v) >= MIN_SECRET_LEN}
    values.update(v for v in extra if v and len(v) >= MIN_SECRET_LEN)
    return sorted(values, key=len, reverse=True)


def scrubbed_env(env: Mapping[str, str] | None = None, secrets: Iterable[str] = ()) -> dict[str, str]:
    """A copy of `env` without credential-looking variables or values."""
    env = os.environ if env is None else env
    hidden = [s for s in secrets if s]
    return {k: v for k, v in env.items()
            if not is_secret_name(k) and not any(s in v for s in hidden)}


def scrub_process_environment(secrets: Iterable[str] = ()) -> list[str]:
    """Drop the credential variables from this process's own environment (after the API client
    has read them) so that nothing it starts can inherit them. Returns the names dropped."""
    keep = scrubbed_env(os.environ, secrets)
    dropped = [k for k in os.environ if k not in keep]
    for k in dropped:
        del os.environ[k]
    return dropped


class Redactor:
    """Replaces secret values in strings, recursively through dicts and lists."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LEN}, key=len, reverse=True)

    def add(self, secret: str) -> None:
        """One more value to redact (a session token made after the log was opened)."""
        if secret and len(secret) >= MIN_SECRET_LEN and secret not in self.secrets:
            self.secrets = sorted([*self.secrets, secret], key=len, reverse=True)

    def text(self, s: str) -> str:
        for secret in self.secrets:
            if secret in s:
                s = s.replace(secret, REDACTED)
        if "sk-ant-" in s:
            s = _KEY_SHAPE.sub(REDACTED, s)
        return s

    def __call__(self, obj):
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {k: self(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self(v) for v in obj]
        if isinstance(obj, tuple):
            return tuple(self(v) for v in obj)
        return obj
