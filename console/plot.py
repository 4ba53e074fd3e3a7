"""A small braille line plot: geomean per evaluation, with the goal as a dotted line.

Each character cell holds 2x4 dots (U+2800 block), so a plot `width` cells wide shows up to
2*width evaluations (older ones are folded: each column shows the best of its bucket). Pure:
returns plain strings and, per cell, whether it holds data, goal or both, for the caller to style.
"""
from __future__ import annotations

import math

_DOT = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))  # [row][col] of a braille cell


def _buckets(values: list[float | None], n: int) -> list[float | None]:
    if len(values) <= n:
        return list(values)
    out: list[float | None] = []
    for i in range(n):
        lo, hi = i * len(values) // n, (i + 1) * len(values) // n
        chunk = [v for v in values[lo:hi] if v is not None]
        out.append(max(chunk) if chunk else None)
    return out


def braille_plot(values: list[float | None], width: int, height: int,
                 goal: float | None = None) -> tuple[list[str], list[list[str]], float, float]:
    """Lines of braille, a per-cell kind ('', 'data', 'goal', 'both'), and the y range (lo, hi).

    `None` values (evaluations that were not all correct) leave a gap in the line.
    """
    width, height = max(1, width), max(1, height)
    cols = _buckets(values, width * 2)
    known = [v for v in cols if v is not None and math.isfinite(v)]
    span = known + ([goal] if goal is not None else [])
    lo, hi = (min(span), max(span)) if span else (0.0, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.05, hi + 0.05
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad
    rows = height * 4
    cells = [[0] * width for _ in range(height)]
    kinds = [[""] * width for _ in range(height)]

    def y_of(v: float) -> int:
        return max(0, min(rows - 1, round((hi - v) / (hi - lo) * (rows - 1))))

    def put(x: int, y: int, kind: str) -> None:
        cy, dy = divmod(y, 4)
        cx, dx = divmod(x, 2)
        if cx >= width:
            return
        cells[cy][cx] |= _DOT[dy][dx]
        k = kinds[cy][cx]
        kinds[cy][cx] = kind if k in ("", kind) else "both"

    if goal is not None:
        gy = y_of(goal)
        for x in range(0, width * 2, 2):
            put(x, gy, "goal")
    n = len(cols)
    dots = width * 2
    xs = [0] if n == 1 else [round(i * (dots - 1) / (n - 1)) for i in range(n)] if n < dots \
        else list(range(n))
    prev: tuple[int, int] | None = None
    for x, v in zip(xs, cols):
        if v is None or not math.isfinite(v):
            prev = None
            continue
        y = y_of(v)
        if prev is not None:  # a straight segment from the previous point
            px, py = prev
            steps = max(abs(x - px), abs(y - py), 1)
            for k in range(steps):
                put(px + round((x - px) * k / steps), py + round((y - py) * k / steps), "data")
        put(x, y, "data")
        prev = (x, y)
    lines = ["".join(chr(0x2800 + c) for c in row) for row in cells]
    return lines, kinds, lo, hi


def sparkline(values: list[float | None], width: int) -> str:
    """One line of block characters: the compact form of the same plot."""
    bars = "▁▂▃▄▅▆▇█"
    cols = _buckets(values, max(1, width))
    known = [v for v in cols if v is not None]
    if not known:
        return ""
    lo, hi = min(known), max(known)
    rng = (hi - lo) or 1.0
    return "".join(" " if v is None else bars[min(7, int((v - lo) / rng * 7.999))] for v in cols)
