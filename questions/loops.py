"""The loop detector's state: the same action with the same outcome, the same error, A/B/A/B.

`LoopWatch` is part of `questions.detectors.Detectors` (one per log); it is fed tool calls, tool
results and evaluated candidates and raises `loop` reasons through the detectors' `fire`. A loop
is one open point: each further repeat of the same pattern grows it (the same `open_key`) until
the agent has made `loop_window` calls without repeating it, an evaluation has moved (repeats
whose evaluations moved are progress, not a loop), or a human has spoken.
"""
from __future__ import annotations

from collections import deque
from typing import Callable

from questions.decision import DetectorConfig
from questions.event_reading import MASK_NUM, error_signature

Fire = Callable[..., None]  # fire(out, kind, evidence, about_seq, at_seq, detail, strength)


class LoopWatch:
    def __init__(self, config: DetectorConfig, fire: Fire, close: Callable[[str], None]) -> None:
        self.config = config
        self._fire = fire
        self._close = close
        self.calls = 0  # tool calls seen
        self._pairs: deque = deque()
        self._pair_counts: dict[int, int] = {}
        self._errors: deque = deque()
        self._error_counts: dict[str, int] = {}
        self._edits: dict[str, deque] = {}
        self._states: dict[str, deque] = {}
        self._lookup: tuple[int, int, int] | None = None  # (read-only action and answer, call, run length)
        self._open: dict[str, list[int]] = {}  # open loop key -> [call count when it last repeated, repeats]

    # -- lifetime of open loops --------------------------------------------------------------------

    def on_call(self) -> None:
        self.calls += 1
        window = self.config.loop_window
        for key, (last, _n) in list(self._open.items()):
            if self.calls - last > window:  # the agent moved on: the loop is over, its repeats forgotten
                del self._open[key]
                self._close(key)
                self._forget(key)

    def _forget(self, key: str) -> None:
        kind, _, rest = key.partition(":")
        if kind == "error" and self._error_counts.get(rest):
            self._error_counts[rest] = 0
            self._errors = deque(e if e != rest else None for e in self._errors)
        elif kind == "action":
            h = int(rest)
            self._pair_counts.pop(h, None)
            self._pairs = deque(p for p in self._pairs if p != h)

    def reset(self) -> None:
        """Progress was made (an evaluation moved) or a human spoke: every loop ends, counts restart."""
        for key in self._open:
            self._close(key)
        self._open.clear()
        self._pairs.clear()
        self._pair_counts.clear()
        self._errors.clear()
        self._error_counts.clear()
        self._edits.clear()
        self._states.clear()
        self._lookup = None

    def _loop(self, out, key: str, evidence: str, seq, detail: dict, strength: float, count: int) -> None:
        """Open a loop of `count` repeats, or grow the open one by one repeat."""
        state = self._open.get(key)
        if state is not None:
            state[0], state[1] = self.calls, state[1] + 1
            count = state[1]
        else:
            self._open[key] = [self.calls, count]
        self._fire(out, "loop", evidence.replace("{n}", str(count)), seq, seq,
                   {**detail, "count": count, "open_key": key}, strength, count=count)

    # -- repeats ------------------------------------------------------------------------------------

    def count_error(self, sig: str | None, seq, out) -> bool:
        """Note one tool result (its error signature, or None); True when it made or grew a loop."""
        cfg = self.config
        errors = self._errors
        errors.append(sig)
        if sig is not None:
            self._error_counts[sig] = self._error_counts.get(sig, 0) + 1
        if len(errors) > cfg.loop_error_window:
            old = errors.popleft()
            if old is not None:
                self._error_counts[old] -= 1
        if sig is None:
            return False
        key = "error:" + sig
        n = self._error_counts[sig]
        if key in self._open or n >= cfg.loop_error_repeat:
            self._loop(out, key, f"the same error {{n}} times: {sig}", seq,
                       {"rule": "same_error", "error": sig}, 0.75, n)
            return True
        return False

    def count_eval_error(self, err: str, seq, out) -> None:
        sig = error_signature(err) or MASK_NUM.sub("N", err.strip().splitlines()[0][:160])
        self.count_error(sig, seq, out)

    def count_pair(self, key: int, shown: str, seq, out) -> None:
        """Note one action with its outcome (hashed together)."""
        cfg = self.config
        pairs = self._pairs
        pairs.append(key)
        self._pair_counts[key] = self._pair_counts.get(key, 0) + 1
        if len(pairs) > cfg.loop_window:
            old = pairs.popleft()
            self._pair_counts[old] -= 1
            if not self._pair_counts[old]:
                del self._pair_counts[old]
        n = self._pair_counts.get(key, 0)
        open_key = f"action:{key}"
        if open_key in self._open or n >= cfg.loop_repeat:
            self._loop(out, open_key, f"the same action with the same outcome {{n}} times: {shown}", seq,
                       {"rule": "same_action", "action": shown}, 0.65, n)

    def count_lookup(self, key: int, shown: str, seq, out) -> None:
        """A read-only call (a search, a listing, a file shown) with its outcome: reading is never a
        loop, unless the same read with the same answer comes back-to-back `loop_repeat` times."""
        last = self._lookup
        n = last[2] + 1 if last is not None and last[0] == key and last[1] == self.calls - 1 else 1
        self._lookup = (key, self.calls, n)
        open_key = f"lookup:{key}"
        if open_key in self._open or n >= self.config.loop_repeat:
            self._loop(out, open_key, f"the same lookup with the same answer {{n}} times in a row: {shown}", seq,
                       {"rule": "same_lookup", "action": shown}, 0.6, n)

    def edits(self, ops, seq, out) -> None:
        """A file's content going A, B, A, B, or an edit made, undone and made again."""
        for path, old, new in ops:
            if old is None:
                states = self._states.setdefault(path, deque(maxlen=6))
                h = hash(new)
                if len(states) >= 3 and states[-2] == h and states[-1] == states[-3] and states[-1] != h:
                    states.clear()
                    self._loop(out, "alternation:" + path, f"alternating between two versions of {path} "
                               f"(A, B, A, B; {{n}} times)", seq, {"rule": "alternation", "path": path}, 0.7, 2)
                    return
                states.append(h)
            else:
                edits = self._edits.setdefault(path, deque(maxlen=8))
                a, b = hash(old), hash(new)
                if a == b:
                    continue
                items = list(edits)
                try:
                    back = max(i for i, e in enumerate(items) if e == (b, a))
                except ValueError:
                    back = -1
                if back > 0 and (a, b) in items[:back]:
                    edits.clear()
                    self._loop(out, "alternation:" + path, f"the same edit of {path} made, undone and made again "
                               f"({{n}} times)", seq, {"rule": "alternation", "path": path}, 0.7, 2)
                    return
                edits.append((a, b))

    def candidate(self, h: str, seq, out) -> None:
        """The evaluated candidate's hash: two candidates in alternation (A, B, A, B)."""
        states = self._states.setdefault("\0candidate", deque(maxlen=6))
        if states and states[-1] == h:
            return
        if len(states) >= 3 and states[-2] == h and states[-1] == states[-3]:
            states.clear()
            self._loop(out, "alternation:candidate", "evaluating two candidates in alternation (A, B, A, B; {n} "
                       "times)", seq, {"rule": "alternation", "path": "candidate"}, 0.7, 2)
            return
        states.append(h)
