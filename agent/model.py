"""One model turn on the Messages API: a streamed request, retried until it completes.

The SDK's own retries are off (max_retries=0): they would not cover a stream that dies midway,
and the runner wants every retry in the log. `ModelClient.turn` retries with exponential backoff
and jitter (honouring retry-after) on 429, 5xx, 529 overloaded, an `error` event inside the
stream, a connection that drops, a stream that ends without `message_stop`, and an event the SDK
cannot read (malformed JSON, an unexpected shape) once the stream is open: a garbled stream is a
dropped stream. Anything else (400, 401, 403, 404, 413) is a `ModelError` at once.

The stream is read on a worker thread that hands events over a queue, so the caller's thread
can give up on it at once when the steerer interrupts (a blocked socket read cannot be woken
portably) and can flush coalesced deltas on a clock while the model is silent.
"""
from __future__ import annotations

import queue
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

import anthropic
import httpx2

from agent.config import AgentConfig

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
RETRY_ERROR_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
POLL_S = 0.05


class ModelError(Exception):
    """A request that cannot succeed by retrying (or ran out of retries)."""

    exit_code = 1

    def __init__(self, message: str, *, status: int | None = None, kind: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


class MissingCredentials(Exception):
    exit_code = 2


class _Retryable(Exception):
    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class TurnSink(Protocol):
    """What the runner hears while a turn streams (all calls on the caller's thread)."""

    def attempt(self, attempt: int) -> None: ...
    def text_delta(self, index: int, text: str, kind: str) -> None: ...  # kind: text | thinking
    def block(self, index: int, block: dict) -> None: ...  # one whole content block (API param shape)
    def tick(self) -> None: ...  # at least every POLL_S while waiting
    def retry(self, attempt: int, error: str, delay_s: float, status: int | None) -> None: ...


@dataclass
class TurnResult:
    blocks: list[dict]
    stop_reason: str | None
    usage: dict
    attempt: int
    interrupted: bool = False
    request_id: str | None = None
    partial: dict = field(default_factory=dict)  # index -> unfinished text (interrupted turns)


def make_client(config: AgentConfig) -> anthropic.Anthropic:
    """The SDK client from the environment (ANTHROPIC_API_KEY / _AUTH_TOKEN / _BASE_URL, ...)."""
    try:
        client = anthropic.Anthropic(
            max_retries=0,
            timeout=httpx2.Timeout(config.request_timeout_s, connect=30.0),
        )
    except anthropic.AnthropicError as exc:  # a broken profile or credential file
        raise MissingCredentials(f"no usable Anthropic credentials ({exc}); set ANTHROPIC_API_KEY") from None
    if client.api_key is None and client.auth_token is None and getattr(client, "credentials", None) is None:
        raise MissingCredentials("no Anthropic API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)")
    return client


def client_secrets(client: anthropic.Anthropic) -> list[str]:
    return [s for s in (client.api_key, client.auth_token) if s]


def _block_param(block) -> dict | None:
    """A response content block (SDK model) as the param dict sent back in later requests."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    if kind == "tool_use":
        inp = block.input if isinstance(block.input, dict) else {}
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": inp}
    return None  # server tool blocks and the like: not used by this runner


def _usage_dict(u) -> dict:
    if u is None:
        return {}
    return {
        "input_tokens": getattr(u, "input_tokens", None) or 0,
        "output_tokens": getattr(u, "output_tokens", None) or 0,
        "cache_write_tokens": getattr(u, "cache_creation_input_tokens", None) or 0,
        "cache_read_tokens": getattr(u, "cache_read_input_tokens", None) or 0,
    }


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return float(value) * scale
            except ValueError:
                return None
    return None


def _error_type(exc: anthropic.APIStatusError) -> str | None:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict):
            return err.get("type")
    return None


def _error_text(exc: anthropic.APIStatusError) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        err = body["error"]
        return f"{err.get('type')}: {err.get('message')}"
    return str(exc)[:300]


def _garbled(exc: BaseException) -> bool:
    """An error raised while reading an open stream that is about the stream's content (not the
    connection, not an API error the server sent): the SDK could not decode or fold an event."""
    if isinstance(exc, (anthropic.APIStatusError, anthropic.APIConnectionError, httpx2.HTTPError)):
        return False
    return isinstance(exc, (ValueError, KeyError, IndexError, TypeError, AttributeError,
                            anthropic.APIResponseValidationError, RuntimeError))


class ModelClient:
    def __init__(self, client: anthropic.Anthropic, config: AgentConfig) -> None:
        self.client = client
        self.config = config
        self._rng = random.Random()

    def backoff(self, attempt: int, retry_after: float | None) -> float:
        base = min(self.config.retry_cap_s, self.config.retry_base_s * 2 ** (attempt - 1))
        delay = base * (0.5 + 0.5 * self._rng.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.config.retry_cap_s * 2))
        return delay

    def turn(self, request: dict, sink: TurnSink, cancel: threading.Event) -> TurnResult:
        """Stream one response, retrying; returns it whole, or interrupted when `cancel` is set."""
        attempt = 0
        while True:
            attempt += 1
            if cancel.is_set():
                return TurnResult([], "interrupted", {}, attempt, interrupted=True)
            sink.attempt(attempt)
            try:
                return self._once(request, sink, cancel, attempt)
            except _Retryable as exc:
                if attempt > self.config.max_retries:
                    raise ModelError(f"gave up after {attempt} attempts: {exc}", status=exc.status) from None
                delay = self.backoff(attempt, exc.retry_after)
                sink.retry(attempt, str(exc), delay, exc.status)
                deadline = time.monotonic() + delay
                while time.monotonic() < deadline:
                    if cancel.wait(min(POLL_S, max(0.0, deadline - time.monotonic()))):
                        return TurnResult([], "interrupted", {}, attempt, interrupted=True)
                    sink.tick()

    def _once(self, request: dict, sink: TurnSink, cancel: threading.Event, attempt: int) -> TurnResult:
        events: queue.Queue = queue.Queue()
        holder: dict = {}

        def pump() -> None:
            try:
                with self.client.messages.stream(**request) as stream:
                    holder["stream"] = stream
                    holder["request_id"] = stream.request_id
                    for ev in stream:
                        events.put(("event", ev))
                        if holder.get("abandoned"):
                            return
                events.put(("end", None))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                if "stream" in holder and _garbled(exc):
                    exc = _Retryable(f"malformed stream event: {type(exc).__name__}: {str(exc)[:200]}")
                events.put(("error", exc))

        worker = threading.Thread(target=pump, name="model-stream", daemon=True)
        worker.start()
        blocks: dict[int, dict] = {}
        partial: dict[int, dict] = {}
        usage: dict = {}
        stop_reason = None
        finished = False
        try:
            while True:
                if cancel.is_set():
                    return self._interrupted(blocks, partial, usage, attempt, holder)
                try:
                    kind, item = events.get(timeout=POLL_S)
                except queue.Empty:
                    sink.tick()
                    continue
                if kind == "end":
                    break
                if kind == "error":
                    if cancel.is_set():
                        return self._interrupted(blocks, partial, usage, attempt, holder)
                    raise self._classify(item)
                t = item.type
                if t == "message_start":
                    usage = _usage_dict(item.message.usage)
                elif t == "content_block_start":
                    cb = item.content_block
                    partial[item.index] = {"type": cb.type, "text": ""}
                elif t == "content_block_delta":
                    d = item.delta
                    if d.type == "text_delta":
                        partial.setdefault(item.index, {"type": "text", "text": ""})["text"] += d.text
                        sink.text_delta(item.index, d.text, "text")
                    elif d.type == "thinking_delta":
                        partial.setdefault(item.index, {"type": "thinking", "text": ""})["text"] += d.thinking
                        sink.text_delta(item.index, d.thinking, "thinking")
                elif t == "content_block_stop":
                    param = _block_param(item.content_block)
                    partial.pop(item.index, None)
                    if param is not None:
                        blocks[item.index] = param
                        sink.block(item.index, param)
                elif t == "message_delta":
                    stop_reason = item.delta.stop_reason
                    out = getattr(item.usage, "output_tokens", None)
                    if out is not None:
                        usage["output_tokens"] = out
                elif t == "message_stop":
                    finished = True
                sink.tick()
        finally:
            holder["abandoned"] = True
        if not finished:
            raise _Retryable("the stream ended before message_stop")
        return TurnResult([blocks[i] for i in sorted(blocks)], stop_reason, usage, attempt,
                          request_id=holder.get("request_id"))

    def _interrupted(self, blocks, partial, usage, attempt, holder) -> TurnResult:
        holder["abandoned"] = True
        stream = holder.get("stream")
        if stream is not None:
            try:
                stream.close()
            except Exception:  # noqa: BLE001 - the worker thread owns it; best effort
                pass
        out_chars = sum(len(p.get("text", "")) for p in partial.values())
        usage = dict(usage)
        usage["output_tokens"] = max(usage.get("output_tokens", 0), out_chars // 4)
        return TurnResult([blocks[i] for i in sorted(blocks)], "interrupted", usage, attempt,
                          interrupted=True, request_id=holder.get("request_id"),
                          partial={i: p for i, p in partial.items() if p.get("text")})

    @staticmethod
    def _classify(exc: BaseException) -> Exception:
        if isinstance(exc, _Retryable):
            return exc
        if isinstance(exc, anthropic.APIStatusError):
            status = exc.status_code
            etype = _error_type(exc)
            text = _error_text(exc)
            if status in RETRY_STATUS or (status < 400 and etype in RETRY_ERROR_TYPES):
                shown = status if status >= 400 else "in-stream"
                return _Retryable(f"{shown} {text}", retry_after=_retry_after(exc), status=status)
            return ModelError(f"{status} {text}", status=status, kind=etype)
        if isinstance(exc, (anthropic.APIConnectionError, httpx2.TransportError)):
            return _Retryable(f"connection: {type(exc).__name__}: {exc}")
        if isinstance(exc, httpx2.HTTPError):
            return _Retryable(f"http: {type(exc).__name__}: {exc}")
        if isinstance(exc, Exception):
            return ModelError(f"{type(exc).__name__}: {exc}")
        return ModelError(f"{type(exc).__name__}")
