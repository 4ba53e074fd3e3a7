"""A local HTTP server that speaks the Anthropic Messages API, scripted per test.

The real `anthropic` SDK talks to it through ANTHROPIC_BASE_URL. It answers `POST /v1/messages`
with streamed server-sent events (message_start, content_block_start/delta/stop, message_delta,
message_stop, pings), tool_use blocks whose input arrives as input_json_delta pieces, thinking
blocks with signatures, usage, error responses with the API's JSON error bodies (529, 500, 429,
400, ...), errors inside a stream, and streams that drop midway. It records every request.

It also checks each request the way the real API would reject it (tool_use without its
tool_result, tool_result not first, more than four cache_control breakpoints, empty content, ...)
and answers 400 `invalid_request_error` so a runner bug fails loudly instead of passing.

Scripting::

    server = FakeAnthropic([
        Reply(tool("bash", command="ls")),                     # a fixed response
        lambda req: Reply(text(f"saw {len(req.messages)}")),   # a responder looking at the request
        Error(529),                                            # overloaded
        Drop(Reply(text("long answer ..."))), after=4),        # the stream dies after 4 events
        Garble(Reply(text("answer")), at=3),                   # its 4th event's data is not JSON
    ])
    with server:
        os.environ["ANTHROPIC_BASE_URL"] = server.url
        ...
    server.requests[1].tool_results()   # what the runner sent

A responder is a `Response` or a callable `(RecordedRequest) -> Response`; they are used in
order, one per request. `FakeAnthropic(handler=fn)` uses one function for every request instead
(a scripted model that decides from the conversation, e.g. to edit the kernel of the task in the
prompt); `by_step(...)` makes one from steps indexed by the model turn, so that a retried request
is answered the same way. When the script runs out the server answers 400 and notes it in
`server.problems`.

To record a session with a scripted model driving the real runner (e.g. a bundled example)::

    def edit(req):                      # the prompt names the candidate and the entry
        cand = re.search(r"Your candidate is `([^`]+)`", req.first_user_text).group(1)
        return Reply(text("Unrolling."), tool("edit_file", path=cand, old_string=..., new_string=...))

    with FakeAnthropic(handler=by_step(Reply(tool("read_file", path="candidate.c")), edit,
                                       Reply(tool("evaluate", quick=True)), Reply(text("Done.")))) as s:
        subprocess.run(["kernelseek", "run", "attention-cpu", "--session", out, "--max-turns", "6"],
                       env={**os.environ, **s.env()})

Run standalone (`python tests/agent/fake_anthropic.py --port 8765`) it serves a tiny built-in
script, which is handy for poking at the runner by hand.
"""
from __future__ import annotations

import argparse
import itertools
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable

_ids = itertools.count(1)


# -- what a scripted model says ---------------------------------------------------------------

@dataclass
class Text:
    text: str
    type: str = "text"


@dataclass
class Thinking:
    thinking: str
    signature: str = "sig-fake"
    type: str = "thinking"


@dataclass
class ToolUse:
    name: str
    input: dict
    id: str = ""
    type: str = "tool_use"

    def __post_init__(self) -> None:
        if not self.id:
            self.id = f"toolu_fake{next(_ids):04d}"


def text(s: str) -> Text:
    return Text(s)


def thinking(s: str, signature: str = "sig-fake") -> Thinking:
    return Thinking(s, signature)


def tool(name: str, _id: str = "", **input: Any) -> ToolUse:
    return ToolUse(name, dict(input), _id)


class Response:
    """Something the server does for one request."""


@dataclass
class Reply(Response):
    """A streamed message made of `blocks`.

    stop_reason defaults to tool_use when a block is a tool call, else end_turn. Text arrives in
    pieces of `chunk` characters, `delay` seconds apart (a slow model, for live-view and
    interrupt tests). usage overrides the token counts reported (defaults from the sizes).
    """

    blocks: list = field(default_factory=list)
    stop_reason: str | None = None
    chunk: int = 12
    delay: float = 0.0
    usage: dict | None = None
    ping: bool = True

    def __init__(self, *blocks, stop_reason: str | None = None, chunk: int = 12, delay: float = 0.0,
                 usage: dict | None = None, ping: bool = True) -> None:
        flat: list = []
        for b in blocks:
            if isinstance(b, (list, tuple)):
                flat.extend(b)
            elif isinstance(b, str):
                flat.append(Text(b))
            else:
                flat.append(b)
        self.blocks = flat
        self.stop_reason = stop_reason
        self.chunk = chunk
        self.delay = delay
        self.usage = usage
        self.ping = ping


@dataclass
class Error(Response):
    """An HTTP error with the API's JSON error body (or, `in_stream`, an SSE `error` event
    after message_start, as the API sends when it overloads mid-response)."""

    status: int = 529
    type: str | None = None
    message: str | None = None
    retry_after: float | None = None
    in_stream: bool = False

    _TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
              404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
              500: "api_error", 529: "overloaded_error"}

    def body(self) -> dict:
        kind = self.type or self._TYPES.get(self.status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": self.message or kind.replace("_", " ")},
                "request_id": f"req_fake{next(_ids):04d}"}


@dataclass
class Drop(Response):
    """Stream `reply` but cut the connection after `after` SSE events.

    mode "reset": the chunked body ends without its last chunk (the client sees a protocol
    error, as when a proxy or the network drops the stream); "eof": a clean end of the body
    with no message_stop (the client only notices that the message never finished).
    """

    reply: Reply
    after: int = 4
    mode: str = "reset"


@dataclass
class Garble(Response):
    """Stream `reply`, but send its `at`-th SSE event with a data line that is not JSON (a
    proxy or the network mangled it), then go on as if nothing happened."""

    reply: Reply
    at: int = 3
    data: str = '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_del'


@dataclass
class Stall(Response):
    """Accept the request, send message_start, then say nothing for `seconds`."""

    seconds: float = 30.0


Responder = Response | Callable[["RecordedRequest"], Response]


def by_step(*steps: Responder, then: Responder | None = None) -> Callable[["RecordedRequest"], Response]:
    """A scripted model: the k-th model turn of the conversation (k = the assistant messages the
    request already holds) is answered by steps[k], a Response or a callable(request); after the
    last step, `then` (by default an error saying the script is over). Unlike a plain list, it
    follows the conversation, so retried requests get the same answer again."""
    def handler(req: "RecordedRequest") -> Response:
        r = steps[req.step] if req.step < len(steps) else then
        if r is None:
            return Error(400, message=f"the scripted model has no step {req.step}")
        return r(req) if callable(r) else r

    return handler


# -- what the runner sent ---------------------------------------------------------------------

@dataclass
class RecordedRequest:
    n: int
    path: str
    headers: dict
    body: dict
    t: float

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages") or []

    @property
    def step(self) -> int:
        """How many model turns the conversation already holds (its assistant messages)."""
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    @property
    def api_key(self) -> str | None:
        """The credential the client sent (x-api-key, or an Authorization bearer token)."""
        if self.headers.get("x-api-key"):
            return self.headers["x-api-key"]
        auth = self.headers.get("authorization", "")
        return auth[7:] if auth.lower().startswith("bearer ") else None

    @property
    def system_text(self) -> str:
        system = self.body.get("system")
        if isinstance(system, str):
            return system
        return "\n".join(b.get("text", "") for b in system or [])

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name") for t in self.body.get("tools") or []]

    @property
    def first_user_text(self) -> str:
        return _text_of(self.messages[0]["content"]) if self.messages else ""

    def last_user(self) -> list[dict]:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                c = m.get("content")
                return [{"type": "text", "text": c}] if isinstance(c, str) else list(c)
        return []

    def tool_results(self) -> dict[str, dict]:
        """The last user turn's tool results: id -> {text, is_error}."""
        out = {}
        for b in self.last_user():
            if b.get("type") == "tool_result":
                out[b["tool_use_id"]] = {"text": _text_of(b.get("content")), "is_error": bool(b.get("is_error"))}
        return out

    def result_text(self, index: int = -1) -> str:
        """The text of one tool result of the last user turn (the last by default)."""
        results = list(self.tool_results().values())
        return results[index]["text"] if results else ""

    def user_texts(self) -> list[str]:
        """The plain text blocks of the last user turn (human messages, the runner's notes)."""
        return [b.get("text", "") for b in self.last_user() if b.get("type") == "text"]

    def all_text(self) -> str:
        """Every string of the request, for counting occurrences."""
        return json.dumps(self.body, ensure_ascii=False)

    def count(self, needle: str) -> int:
        """How often `needle` appears in the conversation's text blocks and tool results."""
        n = 0
        for m in self.messages:
            c = m.get("content")
            blocks = [{"type": "text", "text": c}] if isinstance(c, str) else c
            for b in blocks:
                n += _text_of(b.get("content") if b.get("type") == "tool_result" else b.get("text", "")).count(needle)
        return n


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


# -- the checks the real API makes ------------------------------------------------------------

def request_problems(body: dict) -> list[str]:
    """Why the real Messages API would reject this request (the subset a runner can get wrong)."""
    problems: list[str] = []
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            problems.append(f"{key}: Field required")
    messages = body.get("messages") or []
    if messages and messages[0].get("role") != "user":
        problems.append("messages: first message must use the user role")
    breakpoints = 0

    def count_cc(obj: Any) -> None:
        nonlocal breakpoints
        if isinstance(obj, dict):
            if "cache_control" in obj:
                breakpoints += 1
            for v in obj.values():
                count_cc(v)
        elif isinstance(obj, list):
            for v in obj:
                count_cc(v)

    count_cc(body.get("system"))
    count_cc(body.get("tools"))
    count_cc(messages)
    if breakpoints > 4:
        problems.append(f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}.")
    pending_tool_ids: list[str] = []
    for i, m in enumerate(messages):
        role = m.get("role")
        content = m.get("content")
        if role not in ("user", "assistant"):
            problems.append(f"messages.{i}.role: must be user or assistant")
            continue
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        if not blocks:
            problems.append(f"messages.{i}: all messages must have non-empty content")
        for j, b in enumerate(blocks):
            if b.get("type") == "text" and not b.get("text"):
                problems.append(f"messages.{i}.content.{j}.text: text content blocks must be non-empty")
            if b.get("type") == "thinking" and "signature" not in b:
                problems.append(f"messages.{i}.content.{j}.thinking.signature: Field required")
        if role == "user":
            ids = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
            if pending_tool_ids and sorted(ids) != sorted(pending_tool_ids):
                missing = set(pending_tool_ids) - set(ids)
                problems.append(
                    f"messages.{i}: tool_use ids were found without tool_result blocks immediately "
                    f"after: {', '.join(sorted(missing)) or '(extra results)'}")
            if not pending_tool_ids and ids:
                problems.append(f"messages.{i}.content: unexpected tool_use_id found in tool_result blocks")
            seen_other = False
            for b in blocks:
                if b.get("type") == "tool_result" and seen_other:
                    problems.append(f"messages.{i}: tool_result blocks must come first in the content")
                    break
                if b.get("type") != "tool_result":
                    seen_other = True
            pending_tool_ids = []
        else:
            if pending_tool_ids:
                problems.append(f"messages.{i}: tool_use ids without tool_result: {pending_tool_ids}")
            pending_tool_ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
    if pending_tool_ids and messages and messages[-1].get("role") == "assistant":
        pass  # a trailing assistant prefill with tool_use is rejected by the API too, but we never send one
    tool_names = [t.get("name") for t in body.get("tools") or []]
    if len(set(tool_names)) != len(tool_names):
        problems.append("tools: tool names must be unique")
    return problems


# -- the server -------------------------------------------------------------------------------

class FakeAnthropic:
    def __init__(self, script: Iterable[Responder] = (), *, handler: Callable[[RecordedRequest], Response] | None = None,
                 validate: bool = True, host: str = "127.0.0.1", port: int = 0) -> None:
        self.script: list[Responder] = list(script)
        self.handler = handler
        self.validate = validate
        self.requests: list[RecordedRequest] = []
        self.problems: list[str] = []
        self.lock = threading.Lock()
        self.request_seen = threading.Condition(self.lock)
        self._next = 0
        self._server = ThreadingHTTPServer((host, port), _make_handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeAnthropic":
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-anthropic", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeAnthropic":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def add(self, *responders: Responder) -> None:
        with self.lock:
            self.script.extend(responders)

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> bool:
        """Block until at least `n` requests arrived (True) or the timeout passed (False)."""
        with self.request_seen:
            return self.request_seen.wait_for(lambda: len(self.requests) >= n, timeout)

    def env(self, api_key: str = "sk-ant-test-0123456789abcdef") -> dict:
        """Environment variables pointing the SDK at this server."""
        return {"ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": api_key}

    # called from the handler threads
    def _record(self, path: str, headers: dict, body: dict) -> tuple[RecordedRequest, Responder | None]:
        with self.request_seen:
            req = RecordedRequest(len(self.requests), path, headers, body, time.time())
            self.requests.append(req)
            self.request_seen.notify_all()
            if self.handler is not None:
                return req, self.handler
            if self._next < len(self.script):
                responder = self.script[self._next]
                self._next += 1
                return req, responder
            return req, None


def _make_handler(server: FakeAnthropic):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._error(Error(400, message="request body is not JSON"))
                return
            if self.path.split("?")[0] != "/v1/messages":
                self._error(Error(404, message=f"no route {self.path}"))
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            req, responder = server._record(self.path, headers, body)
            if not req.api_key:
                self._error(Error(401, message="x-api-key header is required"))
                return
            if server.validate:
                problems = request_problems(body)
                if problems:
                    server.problems.extend(f"request {req.n}: {p}" for p in problems)
                    self._error(Error(400, message="; ".join(problems)))
                    return
            if responder is None:
                server.problems.append(f"request {req.n}: the script ran out")
                self._error(Error(400, message="fake server: the script ran out of responses"))
                return
            try:
                response = responder(req) if callable(responder) else responder
            except Exception as exc:  # a broken responder is a test bug: say so in the answer
                server.problems.append(f"request {req.n}: responder raised {exc!r}")
                self._error(Error(500, message=f"responder raised {exc!r}"))
                return
            if isinstance(response, Error) and not response.in_stream:
                self._error(response)
            elif isinstance(response, Error):
                self._stream(Reply(), req, error=response)
            elif isinstance(response, Drop):
                self._stream(response.reply, req, drop_after=response.after, drop_mode=response.mode)
            elif isinstance(response, Stall):
                self._stream(Reply(), req, stall=response.seconds)
            elif isinstance(response, Garble):
                self._stream(response.reply, req, garble=(response.at, response.data))
            elif isinstance(response, Reply):
                if body.get("stream"):
                    self._stream(response, req)
                else:
                    self._json(200, _message_json(response, req))
            else:
                self._error(Error(500, message=f"responder returned {response!r}"))

        # -- writing -------------------------------------------------------------------------

        def _json(self, status: int, obj: dict, extra_headers: dict | None = None) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", obj.get("request_id") or f"req_fake{next(_ids):04d}")
            for k, v in (extra_headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _error(self, err: Error) -> None:
            extra = {"x-should-retry": "true"} if err.status in (429, 500, 529) else {}
            if err.retry_after is not None:
                extra["retry-after"] = str(err.retry_after)
            self._json(err.status, err.body(), extra)

        def _stream(self, reply: Reply, req: RecordedRequest, *, error: Error | None = None,
                    drop_after: int | None = None, drop_mode: str = "reset", stall: float = 0.0,
                    garble: tuple[int, str] | None = None) -> None:
            chunked = not (drop_after is not None and drop_mode == "eof")
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("request-id", f"req_fake{next(_ids):04d}")
            if chunked:
                self.send_header("transfer-encoding", "chunked")
            else:
                self.send_header("connection", "close")
                self.close_connection = True
            self.end_headers()
            sent = 0
            try:
                for name, data, pause in _sse_events(reply, req, error=error):
                    if drop_after is not None and sent >= drop_after:
                        self._cut(chunked)
                        return
                    text = garble[1] if garble and sent == garble[0] else json.dumps(data)
                    payload = f"event: {name}\ndata: {text}\n\n".encode()
                    self._write(payload, chunked)
                    sent += 1
                    if stall and name == "message_start":
                        time.sleep(stall)
                        self._cut(chunked)
                        return
                    if pause:
                        time.sleep(pause)
                if chunked:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client hung up (an interrupt): fine

        def _write(self, payload: bytes, chunked: bool) -> None:
            if chunked:
                self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            else:
                self.wfile.write(payload)
            self.wfile.flush()

        def _cut(self, chunked: bool) -> None:
            self.close_connection = True
            try:
                self.wfile.flush()
                if chunked:
                    self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    return Handler


def _approx_tokens(obj: Any) -> int:
    return max(1, len(json.dumps(obj)) // 4)


def _usage(reply: Reply, req: RecordedRequest) -> dict:
    out_chars = sum(len(getattr(b, "text", "") or getattr(b, "thinking", "") or json.dumps(getattr(b, "input", "")))
                    for b in reply.blocks)
    usage = {"input_tokens": _approx_tokens(req.body.get("messages")) + _approx_tokens(req.body.get("system") or ""),
             "output_tokens": max(1, out_chars // 4), "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0}
    usage.update(reply.usage or {})
    return usage


def _stop_reason(reply: Reply) -> str:
    if reply.stop_reason:
        return reply.stop_reason
    return "tool_use" if any(isinstance(b, ToolUse) for b in reply.blocks) else "end_turn"


def _message_json(reply: Reply, req: RecordedRequest) -> dict:
    content = []
    for b in reply.blocks:
        if isinstance(b, Text):
            content.append({"type": "text", "text": b.text})
        elif isinstance(b, Thinking):
            content.append({"type": "thinking", "thinking": b.thinking, "signature": b.signature})
        elif isinstance(b, ToolUse):
            content.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
    usage = _usage(reply, req)
    return {"id": f"msg_fake{next(_ids):04d}", "type": "message", "role": "assistant",
            "model": req.body.get("model"), "content": content, "stop_reason": _stop_reason(reply),
            "stop_sequence": None, "usage": usage}


def _pieces(s: str, n: int) -> list[str]:
    return [s[i:i + n] for i in range(0, len(s), n)] or [""]


def _sse_events(reply: Reply, req: RecordedRequest, *, error: Error | None = None):
    """(event name, data, pause after) for one streamed message."""
    usage = _usage(reply, req)
    start_usage = {k: usage[k] for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")}
    start_usage["output_tokens"] = 1
    yield "message_start", {"type": "message_start", "message": {
        "id": f"msg_fake{next(_ids):04d}", "type": "message", "role": "assistant",
        "model": req.body.get("model"), "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": start_usage}}, 0.0
    if error is not None:
        yield "error", error.body(), 0.0
        return
    if reply.ping:
        yield "ping", {"type": "ping"}, 0.0
    for index, b in enumerate(reply.blocks):
        if isinstance(b, Text):
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}, 0.0
            for piece in _pieces(b.text, reply.chunk):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "text_delta", "text": piece}}, reply.delay
        elif isinstance(b, Thinking):
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "thinking", "thinking": "", "signature": ""}}, 0.0
            for piece in _pieces(b.thinking, reply.chunk):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "thinking_delta", "thinking": piece}}, reply.delay
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "signature_delta", "signature": b.signature}}, 0.0
        elif isinstance(b, ToolUse):
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "tool_use", "id": b.id, "name": b.name,
                                                            "input": {}}}, 0.0
            for piece in _pieces(json.dumps(b.input), max(reply.chunk, 24)):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "input_json_delta", "partial_json": piece}}, reply.delay
        yield "content_block_stop", {"type": "content_block_stop", "index": index}, 0.0
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
                            "usage": {"output_tokens": usage["output_tokens"]}}, 0.0
    yield "message_stop", {"type": "message_stop"}, 0.0


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - a manual aid
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8765)
    args = ap.parse_args(argv)
    server = FakeAnthropic(handler=lambda req: Reply(text(f"(fake) request {req.n}: nothing to do.")),
                           port=args.port).start()
    print(f"fake Messages API at {server.url}; Ctrl-C to stop")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
