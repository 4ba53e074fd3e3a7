"""One forced tool call to the model, live or recorded: what `kernelseek mine --with-model` asks
(`agent/grouping.py`: which wordings ask the same question; `agent/screening.py`: which messages
are questions at all).

Each request forces one tool call (`tool_choice`) whose input is the whole answer. `api_ask` sends
it through the runner's `ModelClient` (retries and backoff as the agent's; the key only in the SDK
client). `RecordedModel` answers from answers recorded per request, keyed by a hash of the
request's content (system, messages, tools: not the model's name), so that a scoring run repeats
without the API and fails loudly when a request changes.
"""
from __future__ import annotations

import hashlib
import json
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


def clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def data_line(obj: dict) -> str:
    """One datum of a request as a JSON line: a text typed by someone stays on its line (JSON
    escapes newlines and quotes) and cannot close the block it sits in or open a tag of its own."""
    return json.dumps(obj, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def forced_request(model: str, max_tokens: int, system: str, content: str, spec: dict) -> dict:
    """A Messages API request whose answer is one call of the tool `spec`."""
    return {"model": model, "max_tokens": max_tokens, "system": system,
            "messages": [{"role": "user", "content": content}],
            "tools": [spec], "tool_choice": {"type": "tool", "name": spec["name"]}}


def request_key(request: dict) -> str:
    """The request's content (system, messages, tools; not the model), hashed: a recorded answer's key."""
    body = {k: request[k] for k in ("system", "messages", "tools", "tool_choice") if k in request}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


@dataclass
class Answer:
    tool_input: dict | None  # what the model passed to the forced tool (None: no usable answer)
    usage: dict = field(default_factory=dict)
    error: str = ""


Ask = Callable[[dict], Answer]


class _QuietSink:
    def attempt(self, attempt: int) -> None: ...
    def text_delta(self, index: int, text: str, kind: str) -> None: ...
    def block(self, index: int, block: dict) -> None: ...
    def tick(self) -> None: ...

    def retry(self, attempt: int, error: str, delay_s: float, status: int | None) -> None:
        print(f"kernelseek mine: the model's request failed ({error}); retrying in {delay_s:.0f} s",
              file=sys.stderr)


def api_ask(config=None) -> tuple[Ask, str]:
    """An `Ask` on the Messages API (credentials from the environment, retries as the runner's),
    and the model's name. Raises agent.model.MissingCredentials without a key."""
    from agent.config import load_config
    from agent.model import ModelClient, ModelError, client_secrets, make_client
    from agent.secrets import Redactor, secret_values

    cfg = config or load_config()
    sdk = make_client(cfg)
    client = ModelClient(sdk, cfg)
    # the logs' text goes out as data: a credential someone pasted into a message (or this
    # process's own key) is not sent on with it
    redact = Redactor(secret_values(extra=client_secrets(sdk)))

    def ask(request: dict) -> Answer:
        request = {**request, "messages": redact(request["messages"])}  # (a second net: the texts come redacted)
        try:
            result = client.turn(request, _QuietSink(), threading.Event())
        except ModelError as exc:
            return Answer(None, error=f"the API refused the request: {exc}")
        tool = request["tool_choice"]["name"]
        for block in result.blocks:
            if block.get("type") == "tool_use" and block.get("name") == tool:
                return Answer(block.get("input"), result.usage)
        return Answer(None, result.usage, error=f"the model did not call {tool} (stop: {result.stop_reason})")

    ask.redact = redact.text  # type: ignore[attr-defined]  (the requests' builders redact each text first)
    return ask, cfg.model


class RecordedModel:
    """An `Ask` that answers from recorded answers: DIR/<request_key>.json holding
    {"tool_input": {...}, "model": "...", ...}. A request with no recording is written to
    DIR/<request_key>.request.txt (system, then the user's text) and listed in `missing`."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.missing: list[str] = []
        self.used: set[str] = set()
        self.models: set[str] = set()

    def __call__(self, request: dict) -> Answer:
        key = request_key(request)
        path = self.dir / f"{key}.json"
        if not path.is_file():
            self.dir.mkdir(parents=True, exist_ok=True)
            (self.dir / f"{key}.request.txt").write_text(
                request["system"] + "\n\n---\n\n" + request["messages"][0]["content"] + "\n", encoding="utf-8")
            self.missing.append(key)
            return Answer(None, error=f"no recorded answer ({path.name})")
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return Answer(None, error=f"{path}: unreadable recorded answer ({exc})")
        self.used.add(key)
        self.models.add(str(doc.get("model", "?")))
        return Answer(doc.get("tool_input"), doc.get("usage") or {})


class Asking:
    """What the model's opinions share: asking through `ask`, counting requests and tokens, saying
    who answered."""

    def __init__(self, ask: Ask, model: str, *, by: str | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.ask = ask
        self.model = model
        self.by = by or model
        self.progress = progress
        self.requests = 0
        self.usage: dict[str, int] = {}
        # what a text typed by someone must lose before it goes out (the API's: credentials)
        self.redact: Callable[[str], str] = getattr(ask, "redact", None) or (lambda text: text)

    def asked(self, request: dict, doing: str) -> Answer:
        """`request`'s answer; `doing` ("to group 40 question wording(s)") goes to `progress`."""
        if self.progress is not None:
            self.progress(f"asking {self.model} {doing} (request {self.requests + 1})")
        answer = self.ask(request)
        self.requests += 1
        for k, v in answer.usage.items():
            if isinstance(v, int):
                self.usage[k] = self.usage.get(k, 0) + v
        return answer

    def usage_note(self) -> list[str]:
        if not self.usage:
            return []
        return [f"{self.requests} request(s); tokens in {self.usage.get('input_tokens', 0):,}, "
                f"out {self.usage.get('output_tokens', 0):,}"]

    def describe(self) -> str:
        """Who answered, and in how many requests."""
        return f"{self.by} ({self.requests} request{'s' if self.requests != 1 else ''})"

