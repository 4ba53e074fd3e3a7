"""The Messages API as Claude Code sees it: a proxy in the runner that holds the real credential.

Claude Code runs in the sandbox with a per-session token as its API key; its requests come to
this proxy (over a unix socket, forwarded from a loopback port inside the sandbox by
`inside.py`), which checks the token, puts the runner's real key (or bearer token) in its place
and forwards to the real API (`ANTHROPIC_BASE_URL` of the runner). So the key is in no process
Claude Code or its tools can read, and every request's usage passes here: each response's
`usage` (streamed: message_start and message_delta) is reported exactly once per request.
"""
from __future__ import annotations

import hmac
import http.client
import json
import os
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from agent.claude_code.sockets import UnixSocketServer

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
              "transfer-encoding", "upgrade", "host", "content-length", "x-api-key", "authorization"}
UPSTREAM_TIMEOUT_S = 900.0


class UsageReader:
    """Reads a response's usage as it streams by (SSE) or from its JSON body."""

    def __init__(self) -> None:
        self.model: str | None = None
        self.usage: dict = {}
        self.id: str | None = None
        self._buf = b""

    def feed_sse(self, chunk: bytes) -> None:
        self._buf += chunk
        *lines, self._buf = self._buf.split(b"\n")
        for line in lines:
            if line.startswith(b"data:"):
                try:
                    self._event(json.loads(line[5:]))
                except ValueError:
                    pass

    def feed_json(self, body: bytes) -> None:
        try:
            msg = json.loads(body)
        except ValueError:
            return
        if isinstance(msg, dict) and msg.get("type") == "message":
            self._event({"type": "message_start", "message": msg})

    def _event(self, ev: dict) -> None:
        if ev.get("type") == "message_start" and isinstance(ev.get("message"), dict):
            msg = ev["message"]
            self.model, self.id = msg.get("model"), msg.get("id")
            self.usage.update(msg.get("usage") or {})
        elif ev.get("type") == "message_delta" and isinstance(ev.get("usage"), dict):
            self.usage.update({k: v for k, v in ev["usage"].items() if v is not None})

    def result(self) -> dict | None:
        if not self.usage:
            return None
        u = self.usage
        return {"model": self.model, "message_id": self.id,
                "input_tokens": int(u.get("input_tokens") or 0), "output_tokens": int(u.get("output_tokens") or 0),
                "cache_read_tokens": int(u.get("cache_read_input_tokens") or 0),
                "cache_write_tokens": int(u.get("cache_creation_input_tokens") or 0)}


class ApiProxy:
    """Serves the Messages API on `socket_path` for a holder of `token`, forwarding to `upstream`."""

    def __init__(self, socket_path: str | os.PathLike, *, upstream: str, token: str, api_key: str | None,
                 auth_token: str | None, on_usage: Callable[[dict], None]) -> None:
        self.socket_path = str(socket_path)
        self.upstream = urllib.parse.urlsplit(upstream.rstrip("/"))
        self.token = token
        self.api_key = api_key
        self.auth_token = auth_token
        self.on_usage = on_usage
        self.requests = 0
        self._server = UnixSocketServer(self.socket_path, _handler(self), "api-proxy")

    def start(self) -> "ApiProxy":
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def authorised(self, headers) -> bool:
        given = headers.get("x-api-key") or ""
        auth = headers.get("authorization") or ""
        if not given and auth.lower().startswith("bearer "):
            given = auth[7:]
        return hmac.compare_digest(given.encode(), self.token.encode())

    def connection(self) -> http.client.HTTPConnection:
        u = self.upstream
        cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        return cls(u.hostname, u.port, timeout=UPSTREAM_TIMEOUT_S)

    def upstream_path(self, path: str) -> str:
        return (self.upstream.path or "") + path

    def credential_headers(self) -> dict:
        if self.api_key:
            return {"x-api-key": self.api_key}
        return {"authorization": f"Bearer {self.auth_token}"} if self.auth_token else {}


def _handler(proxy: ApiProxy):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            self._forward("POST")

        def do_GET(self) -> None:
            self._forward("GET")

        def _refuse(self, status: int, message: str) -> None:
            body = json.dumps({"type": "error", "error": {"type": "authentication_error" if status == 401
                                                          else "not_found_error", "message": message}}).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _forward(self, method: str) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            if not proxy.authorised(self.headers):
                self._refuse(401, "the KernelSeek API proxy wants this session's token")
                return
            if not self.path.startswith("/v1/"):
                self._refuse(404, f"the KernelSeek API proxy forwards /v1/ only, not {self.path}")
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            headers.update(proxy.credential_headers())
            if body is not None:
                headers["content-length"] = str(len(body))
            conn = proxy.connection()
            try:
                conn.request(method, proxy.upstream_path(self.path), body=body, headers=headers)
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                msg = json.dumps({"type": "error", "error": {"type": "api_error",
                                                             "message": f"upstream unreachable: {exc}"}}).encode()
                self.send_response(502)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(msg)))
                self.end_headers()
                self.wfile.write(msg)
                conn.close()
                return
            proxy.requests += 1
            usage = UsageReader()
            sse = "text/event-stream" in (resp.getheader("content-type") or "")
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in HOP_BY_HOP:
                    self.send_header(k, v)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            whole = b""
            try:
                while True:
                    chunk = resp.read1(1 << 16)
                    if not chunk:
                        break
                    if sse:
                        usage.feed_sse(chunk)
                    elif len(whole) < (8 << 20):
                        whole += chunk
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (OSError, http.client.HTTPException):
                self.close_connection = True  # the client went away (an interrupt) or upstream broke
            finally:
                conn.close()
                if not sse and resp.status == 200 and self.path.split("?")[0] == "/v1/messages":
                    usage.feed_json(whole)
                result = usage.result() if resp.status == 200 else None
                if result is not None and self.path.split("?")[0] == "/v1/messages":
                    result["request_id"] = resp.getheader("request-id")
                    try:
                        proxy.on_usage(result)
                    except Exception:  # noqa: BLE001 - accounting must not break the reply
                        pass

    return Handler
