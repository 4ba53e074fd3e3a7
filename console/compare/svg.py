"""A small dependency-free SVG line chart: series of (x, y) points, a dashed goal, a legend.

Enough for "geomean over time per arm" in a Markdown report: linear axes with round ticks, one
colour per group of series (an arm), thin lines per series (a session) and a thick line per
group (the arm's median, when given). Text is escaped; nothing is fetched or scripted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


@dataclass
class Series:
    label: str
    points: list[tuple[float, float]]
    group: str = ""
    bold: bool = False


@dataclass
class Chart:
    title: str
    x_label: str
    y_label: str
    series: list[Series] = field(default_factory=list)
    goal: float | None = None
    width: int = 720
    height: int = 400


def nice_ticks(lo: float, hi: float, n: int = 6) -> list[float]:
    """About `n` round tick values covering [lo, hi]."""
    if not math.isfinite(lo) or not math.isfinite(hi):
        return [0.0, 1.0]
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5, hi + 0.5
    raw = (hi - lo) / max(1, n - 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = []
    t = start
    while t <= hi + step * 0.5:
        ticks.append(round(t, 10))
        t += step
    return ticks


def _fmt(v: float) -> str:
    return f"{v:.0f}" if abs(v - round(v)) < 1e-9 and abs(v) >= 1 else f"{v:.2f}".rstrip("0").rstrip(".")


def render_svg(chart: Chart) -> str:
    left, right, top, bottom = 64, 150, 36, 48
    w, h = chart.width, chart.height
    pw, ph = w - left - right, h - top - bottom
    xs = [x for s in chart.series for x, _ in s.points]
    ys = [y for s in chart.series for _, y in s.points] + ([chart.goal] if chart.goal is not None else [])
    xt = nice_ticks(min(xs, default=0.0), max(xs, default=1.0))
    yt = nice_ticks(min(ys, default=0.0), max(ys, default=1.0))
    x0, x1, y0, y1 = xt[0], xt[-1], yt[0], yt[-1]

    def px(x: float) -> float:
        return left + (x - x0) / ((x1 - x0) or 1) * pw

    def py(y: float) -> float:
        return top + ph - (y - y0) / ((y1 - y0) or 1) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="14" font-weight="bold">{escape(chart.title)}</text>']
    for t in yt:
        out.append(f'<line x1="{left}" y1="{py(t):.1f}" x2="{left + pw}" y2="{py(t):.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for t in xt:
        out.append(f'<line x1="{px(t):.1f}" y1="{top + ph}" x2="{px(t):.1f}" y2="{top + ph + 4}" stroke="#333"/>')
        out.append(f'<text x="{px(t):.1f}" y="{top + ph + 18}" text-anchor="middle">{_fmt(t)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{h - 10}" text-anchor="middle">{escape(chart.x_label)}</text>')
    out.append(f'<text transform="translate(16,{top + ph / 2:.1f}) rotate(-90)" text-anchor="middle">'
               f'{escape(chart.y_label)}</text>')
    if chart.goal is not None:
        gy = py(chart.goal)
        out.append(f'<line x1="{left}" y1="{gy:.1f}" x2="{left + pw}" y2="{gy:.1f}" stroke="#444" '
                   'stroke-dasharray="6,4"/>')
        out.append(f'<text x="{left + pw - 4}" y="{gy - 5:.1f}" text-anchor="end" fill="#444">goal '
                   f'{_fmt(chart.goal)}×</text>')
    groups = list(dict.fromkeys(s.group or s.label for s in chart.series))
    colour = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(groups)}
    for s in chart.series:
        if not s.points:
            continue
        c = colour[s.group or s.label]
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        width, opacity = (3, 1.0) if s.bold else (1.2, 0.45)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="{width}" '
                   f'stroke-opacity="{opacity}"><title>{escape(s.label)}</title></polyline>')
        if len(s.points) == 1:
            x, y = s.points[0]
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{c}"/>')
    for i, g in enumerate(groups):
        y = top + 10 + i * 18
        out.append(f'<line x1="{left + pw + 12}" y1="{y}" x2="{left + pw + 36}" y2="{y}" stroke="{colour[g]}" '
                   'stroke-width="3"/>')
        out.append(f'<text x="{left + pw + 42}" y="{y + 4}">{escape(g)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
