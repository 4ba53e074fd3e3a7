"""The wire between the verdict and the candidate host: framed messages, every reply validated.

A message is one line of JSON (at most MAX_HEADER bytes, an object with `kind` and `seq`),
followed by `payload` raw bytes when the header says so. The verdict sends requests and reads
exactly one reply per request; it trusts nothing in a reply: `check_reply` holds each one to its
schema (kind, sequence number, field types, list lengths, finite and bounded numbers, payload
size) and anything else is a `ProtocolError` that names the message, e.g.
`protocol: message 12 is not valid JSON`. The host side (`read_message`, `write_message`) uses
the same framing without the checks: it only ever talks to the verdict.
"""
from __future__ import annotations

import json
import math
import os
import select
import time
from dataclasses import dataclass
from typing import Any

MAX_HEADER = 1 << 16
MAX_PAYLOAD = 1 << 34
MAX_MS = 1e7  # ten thousand seconds: any larger "time" is not a measurement
MAX_CALLS = 1 << 20
MAX_RECORDS = 1 << 24  # census records one call may have
CENSUS_FIELDS = ("census_on", "census_off", "census_span_ms", "census_stray", "census_dropped", "census_what",
                 "census_short", "census_ms")
ERROR_KINDS = ("fault", "internal", "setup")


class ProtocolError(Exception):
    """A reply that is not what the verdict asked for: the evaluation cannot trust the host."""


class HostGone(Exception):
    """The host closed its end (it died, or exited) before replying."""


class HostTimeout(Exception):
    """The host did not reply within the deadline."""


@dataclass
class Message:
    header: dict[str, Any]
    payload: bytes = b""

    @property
    def kind(self) -> str:
        return str(self.header.get("kind"))


def encode(header: dict[str, Any], payload: bytes | memoryview | None = None) -> list[bytes | memoryview]:
    head = dict(header)
    if payload is not None:
        head["payload"] = len(payload)
    line = json.dumps(head, allow_nan=False, separators=(",", ":")).encode() + b"\n"
    return [line] if payload is None else [line, payload]


def write_message(fd: int, header: dict[str, Any], payload: bytes | memoryview | None = None) -> None:
    for part in encode(header, payload):
        view = memoryview(part).cast("B")
        while view:
            n = os.write(fd, view[:1 << 20])
            view = view[n:]


class Reader:
    """Frames from a file descriptor, with an optional deadline per message."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()
        self.count = 0  # messages read so far (the next one is number count + 1)

    def _fill(self, deadline: float | None) -> bool:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise HostTimeout()
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            return False
        self.buf += chunk
        return True

    def read(self, deadline: float | None = None) -> Message:
        """The next frame; ProtocolError for a malformed one, HostGone at end of stream."""
        self.count += 1
        n = self.count
        while b"\n" not in self.buf[:MAX_HEADER + 1]:
            if len(self.buf) > MAX_HEADER:
                raise ProtocolError(f"protocol: message {n} has a header longer than {MAX_HEADER} bytes")
            if not self._fill(deadline):
                if self.buf:
                    raise ProtocolError(f"protocol: message {n} was cut off ({len(self.buf)} bytes, no end of line)")
                raise HostGone()
        end = self.buf.index(b"\n")
        raw = bytes(self.buf[:end])
        del self.buf[:end + 1]
        try:
            header = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError):
            raise ProtocolError(f"protocol: message {n} is not valid JSON") from None
        if not isinstance(header, dict):
            raise ProtocolError(f"protocol: message {n} is not a JSON object")
        size = header.get("payload", 0)
        if not _is_int(size) or not 0 <= size <= MAX_PAYLOAD:
            raise ProtocolError(f"protocol: message {n}: payload size {_show(size)} is not a byte count")
        while len(self.buf) < size:
            if not self._fill(deadline):
                raise ProtocolError(f"protocol: message {n} was cut off ({len(self.buf)} of {size} payload bytes)")
        payload = bytes(self.buf[:size])
        del self.buf[:size]
        return Message(header, payload)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


# ---- reply schemas ------------------------------------------------------------------------------

class _Check:
    """Field checks of one reply; every failure names the message and the field."""

    def __init__(self, n: int, msg: Message) -> None:
        self.n, self.h = n, msg.header
        self.where = f"protocol: message {n} ({msg.kind})"

    def fail(self, text: str) -> ProtocolError:
        return ProtocolError(f"{self.where}: {text}")

    def get(self, key: str) -> Any:
        if key not in self.h:
            raise self.fail(f"field {key!r} is missing")
        return self.h[key]

    def integer(self, key: str, lo: int, hi: int) -> int:
        v = self.get(key)
        if not _is_int(v) or not lo <= v <= hi:
            raise self.fail(f"field {key!r} is {_show(v)}, expected an integer in [{lo}, {hi}]")
        return v

    def numbers(self, key: str, count: int | None, lo: float = 0.0, hi: float = MAX_MS) -> Any:
        """`count` numbers in a list, or one number (count None)."""
        if count is None:
            x = self.get(key)
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not lo <= x <= hi:
                raise self.fail(f"field {key!r} is {_show(x)}, expected a finite number in [{lo:g}, {hi:g}]")
            return float(x)
        v = self.get(key)
        if not isinstance(v, list) or len(v) != count:
            raise self.fail(f"field {key!r} has {len(v) if isinstance(v, list) else _show(v)} items, expected {count}")
        out = []
        for i, x in enumerate(v):
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not lo <= x <= hi:
                raise self.fail(f"{key}[{i}] is {_show(x)}, expected a finite number in [{lo:g}, {hi:g}]")
            out.append(float(x))
        return out

    def integers(self, key: str, count: int, lo: int, hi: int) -> list[int]:
        v = self.get(key)
        if not isinstance(v, list) or len(v) != count:
            raise self.fail(f"field {key!r} has {len(v) if isinstance(v, list) else _show(v)} items, expected {count}")
        for i, x in enumerate(v):
            if not _is_int(x) or not lo <= x <= hi:
                raise self.fail(f"{key}[{i}] is {_show(x)}, expected an integer in [{lo}, {hi}]")
        return list(v)

    def string(self, key: str, limit: int) -> str:
        v = self.get(key)
        if not isinstance(v, str) or len(v) > limit:
            raise self.fail(f"field {key!r} is not a string of at most {limit} characters")
        return v

    def names(self, key: str, allowed: set[str] | None, limit: int) -> list[str]:
        v = self.get(key)
        if not isinstance(v, list) or len(v) > limit or not all(isinstance(x, str) and 0 < len(x) <= 64 for x in v):
            raise self.fail(f"field {key!r} is not a list of at most {limit} short names")
        if allowed is not None and not set(v) <= allowed:
            raise self.fail(f"field {key!r} names {sorted(set(v) - allowed)}, not among {sorted(allowed)}")
        return list(v)

    def only(self, keys: set[str]) -> None:
        extra = set(self.h) - keys - {"kind", "seq", "payload"}
        if extra:
            raise self.fail(f"unexpected field(s) {sorted(extra)}")


def check_reply(n: int, msg: Message, expect: str, seq: int, **spec: Any) -> dict[str, Any]:
    """Validate reply number `n` to request `seq`, which must be of kind `expect`; the checked
    fields. spec: calls (rounds_done), inputs (names), with_modified, nbytes (data),
    max_names (baselines). A host `error` reply becomes HostReportedError."""
    c = _Check(n, msg)
    kind = c.get("kind")
    if c.get("seq") != seq:
        raise c.fail(f"answers request {_show(c.h.get('seq'))}, expected {seq}")
    if kind == "error":
        c.only({"error", "error_kind"})
        ek = c.string("error_kind", 16)
        if ek not in ERROR_KINDS:
            raise c.fail(f"error_kind {_show(ek)} is not one of {', '.join(ERROR_KINDS)}")
        raise HostReportedError(ek, c.string("error", 4000))
    if kind != expect:
        raise c.fail(f"is a {_show(kind)} reply, expected {expect!r}")
    if msg.payload and expect != "data":
        raise c.fail("carries a payload it should not")
    out: dict[str, Any] = {}
    if expect == "started":
        c.only({"census"})
        out["census"] = _census_state(c)
    elif expect == "loaded":
        c.only({"threads", "confined", "libs", "census"})
        out["libs"] = _paths(c)
        out["threads"] = c.integer("threads", 1, 1 << 16)
        out["confined"] = _small_mapping(c, "confined")
        out["census"] = _census_state(c)
    elif expect == "rounds_done":
        calls = spec["calls"]
        keys = {"returned", "event_ms", "wall_ms", "other_cpu_ms", "outside_ms", "libs"}
        if spec.get("with_modified"):
            keys |= {"modified", "late"}
        if spec.get("census") and not spec.get("census_later"):
            keys |= set(CENSUS_FIELDS)
        c.only(keys)
        out["returned"] = c.integers("returned", calls, -(1 << 31), (1 << 31) - 1)
        for key in ("event_ms", "wall_ms", "other_cpu_ms", "outside_ms"):
            out[key] = c.numbers(key, calls)
        out["libs"] = _paths(c)
        if spec.get("with_modified"):
            mods = c.get("modified")
            if not isinstance(mods, list) or len(mods) != calls:
                raise c.fail(f"field 'modified' does not have {calls} items")
            out["modified"] = []
            for i in range(calls):
                sub = _Check(n, Message({"kind": kind, "seq": seq, "m": mods[i]}))
                sub.where = f"{c.where}: modified[{i}]"
                out["modified"].append(sub.names("m", spec["inputs"], len(spec["inputs"])))
            late = c.get("late")
            if not isinstance(late, list) or len(late) != calls or not all(isinstance(x, bool) for x in late):
                raise c.fail(f"field 'late' is not a list of {calls} booleans")
            out["late"] = late
        if spec.get("census") and not spec.get("census_later"):
            out["census"] = _census_counts(c, calls)
    elif expect == "census_done":  # the census of the rounds just answered, asked for after their reply
        c.only(set(CENSUS_FIELDS))
        out["census"] = _census_counts(c, spec["calls"])
    elif expect == "data":
        c.only({"nbytes", "bulk"})
        want = spec["nbytes"]
        got = c.integer("nbytes", 0, MAX_PAYLOAD)
        if c.h.get("bulk") is not None:
            if c.h["bulk"] is not True or not spec.get("bulk"):
                raise c.fail("says its data is in the shared buffer, which was not offered")
            if got != want or msg.payload:
                raise c.fail(f"put {got} bytes in the shared buffer, expected {want}")
            out["bulk"] = True
        elif got != want or len(msg.payload) != want:
            raise c.fail(f"carries {len(msg.payload)} bytes (says {got}), expected {want}")
        out["payload"] = msg.payload
    elif expect == "baselines_ready":
        c.only({"names", "errors"})
        out["names"] = c.names("names", None, spec.get("max_names", 8))
        errors = c.get("errors")
        if not isinstance(errors, dict) or len(errors) > 16 or not all(
                isinstance(k, str) and len(k) <= 64 and isinstance(v, str) for k, v in errors.items()):
            raise c.fail("field 'errors' is not a small mapping of names to messages")
        out["errors"] = {k: v[:500] for k, v in errors.items()}
    else:  # prepared, bye: nothing else
        c.only(set())
    return out


def _small_mapping(c: _Check, key: str) -> dict[str, Any]:
    v = c.get(key)
    if not isinstance(v, dict) or len(v) > 16 or not all(isinstance(k, str) and isinstance(x, (bool, str, int))
                                                         for k, x in v.items()):
        raise c.fail(f"field {key!r} is not a small mapping")
    return v



def _census_counts(c: _Check, calls: int) -> dict[str, Any]:
    return {"on": c.integers("census_on", calls, 0, MAX_RECORDS),
            "off": c.integers("census_off", calls, 0, MAX_RECORDS),
            "span_ms": c.numbers("census_span_ms", calls), "stray": c.integer("census_stray", 0, MAX_RECORDS),
            "dropped": c.integer("census_dropped", 0, 1 << 62), "what": c.string("census_what", 400),
            "short": c.integer("census_short", 0, calls),
            "ms": c.numbers("census_ms", None)}


def _census_state(c: _Check) -> dict[str, Any]:
    state = _small_mapping(c, "census")
    if not isinstance(state.get("on"), bool) or not isinstance(state.get("note"), str) or len(state["note"]) > 400:
        raise c.fail("field 'census' is not {on: bool, note: str}")
    return state


def _paths(c: _Check) -> list[str]:
    libs = c.get("libs")
    if not isinstance(libs, list) or len(libs) > 64 or not all(isinstance(x, str) and 0 < len(x) <= 4096
                                                               for x in libs):
        raise c.fail("field 'libs' is not a list of at most 64 paths")
    return libs


class HostReportedError(Exception):
    """The host answered with an error it found itself (a device fault, a setup failure)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
