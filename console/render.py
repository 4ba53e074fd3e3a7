"""How a transcript row looks: its collapsed lines and its expanded body, as Rich objects.

Pure functions of a `Row`, its events and a width; the transcript widget turns the result into
strips and caches them. Every piece of session text goes through `console.safe_text` and into
`rich.text.Text` (never markup). Styles come from the widget's component classes (the .tcss), as a
mapping of names like "tool-name" to Rich styles.

The collapsed height of a row depends only on its kind, its text length and the width (no Rich
measuring), so the widget can lay out 100,000 rows without rendering them.
"""
from __future__ import annotations

import difflib
import json
import math
from collections.abc import Mapping

from rich.console import Console, Group, RenderableType
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from console.evals import ReportCache, ScenarioRow
from console.model import (COMPACTION, DECISION, END, ERROR, EVAL, HUMAN, MULTILINE_CAP, OTHER,
                           START, STOP, STREAM, TEXT, THINKING, TOOL, Row, SessionModel)
from console.safe_text import clean, clean_line, safe_text

Styles = Mapping[str, Style]
NO_STYLE = Style()
_CONSOLE = Console(width=200, color_system=None, force_terminal=False)  # measures for Text.wrap

ICONS = {START: "●", TEXT: " ", STREAM: " ", THINKING: "∴", TOOL: "▸", EVAL: "◈", DECISION: "◆",
         HUMAN: "✉", STOP: "■", ERROR: "✗", END: "■", OTHER: "·", COMPACTION: "≋"}
STATUS_MARK = {"ok": "✓", "error": "✗", "": "…", "running": "…", "pass": "✓", "fail": "✗", "goal": "★",
               "interrupted": "–"}
OUTPUT_MAX_LINES = 400
GUTTER_MIN_WIDTH = 110  # at this width and above, rows carry their elapsed time on the left
CURSOR_MARK = "▶"  # drawn in the first column of the cursor row (kept blank on the others)
_LEXERS = {"c": "c", "h": "c", "cu": "cuda", "cuh": "cuda", "cc": "cpp", "cpp": "cpp", "hpp": "cpp",
           "cxx": "cpp", "py": "python", "yaml": "yaml", "yml": "yaml", "json": "json", "sh": "bash",
           "md": "markdown", "toml": "toml", "txt": "text", "s": "gas", "ptx": "text"}


def gutter_width(width: int) -> int:
    """Columns before a row's icon: the cursor mark's column, and the elapsed time when wide."""
    return 10 if width >= GUTTER_MIN_WIDTH else 1


def elapsed_text(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "--:--:--"
    s = int(seconds)
    return f"{s // 3600:d}:{s // 60 % 60:02d}:{s % 60:02d}"


def badge(row: Row) -> str:
    """The label a decision point or human message starts with (counted in its height)."""
    if row.kind == DECISION:
        return f" {row.note.upper()} "
    if row.kind == HUMAN:
        return f" YOU · {row.note} " if row.note else " YOU "
    return ""


def collapsed_height(row: Row, width: int) -> int:
    cap = MULTILINE_CAP.get(row.kind)
    if not cap:
        return 1
    avail = max(8, width - gutter_width(width) - 2)
    b = badge(row)
    n = row.text_len + (len(b) + 1 if b else 0) + (1 if row.kind == STREAM else 0)
    return max(1, min(cap, math.ceil(n / avail)))


Piece = tuple[str, Style]


def _prefix_pieces(row: Row, width: int, started: float | None, styles: Styles,
                   icon: str | None = None, mark: bool = True) -> list[Piece]:
    out: list[Piece] = [(" ", NO_STYLE)] if mark else []  # the cursor mark's column
    if width >= GUTTER_MIN_WIDTH:
        out.append((f"{elapsed_text(row.t - started if started is not None else None):>8} ",
                    styles.get("time", NO_STYLE)))
    if row.sub:  # a subagent's step, marked in the margin
        out.append(("┆", styles.get("note", NO_STYLE)))
    out.append(((icon or ICONS.get(row.kind, "·")) + " ", styles.get(f"icon-{row.kind}", NO_STYLE)))
    return out


def _prefix(row: Row, width: int, started: float | None, styles: Styles, icon: str | None = None) -> Text:
    return Text.assemble(*_prefix_pieces(row, width, started, styles, icon), end="")


def _expand_icon(row: Row, expanded: bool) -> str | None:
    single = (TOOL, EVAL, DECISION, OTHER, ERROR, STOP, START, END, THINKING, COMPACTION)
    return "▾" if expanded and row.kind in single else None


def line_pieces(row: Row, width: int, started: float | None, styles: Styles,
                expanded: bool = False, mark: bool = True) -> tuple[list[Piece], list[Piece]]:
    """A one-line row as (left, right) pieces of text and style: the left is cut to make room
    for the right, which ends at the last column. Its first piece is the icon, after the cursor
    mark's column unless `mark` is off (a printer has no cursor)."""
    kind = row.kind
    left = _prefix_pieces(row, width, started, styles, _expand_icon(row, expanded), mark)
    right: list[Piece] = []
    get = styles.get
    if kind == TOOL:
        name, _, args = row.title.partition(" ")
        left.append((name, get("tool-name", NO_STYLE)))
        if args:
            left.append((" " + args, get("tool-args", NO_STYLE)))
        status = row.status or ""
        if row.note:
            right.append((f" {row.note}", get("note", NO_STYLE)))
        right.append((f" {STATUS_MARK.get(status, '?')}", get(f"status-{status or 'running'}", NO_STYLE)))
    elif kind == EVAL:
        left.append((row.title, get(f"eval-{row.status}", NO_STYLE)))
        if row.status == "running" and row.note:
            right.append((f" {row.note}", get("note", NO_STYLE)))
        right.append((f" {STATUS_MARK.get(row.status, '?')}", get(f"eval-{row.status}", NO_STYLE)))
    elif kind in (THINKING, COMPACTION):
        left.append((row.title, get("thinking", NO_STYLE)))
    elif kind == START:
        left.append((row.title, get("start", NO_STYLE)))
        room = width // 3  # the note (who recorded it) never crowds out the session's title
        if row.note and room >= 8:
            note = row.note if len(row.note) < room else row.note[:room - 2] + "…"
            right.append((f" {note}", get("note", NO_STYLE)))
    elif kind == STOP:
        left.append((row.title, get(f"status-{row.status}", NO_STYLE)))
    elif kind in (ERROR, END):
        left.append((row.title, get(kind, NO_STYLE)))
    else:
        left.append((row.title, get("other", NO_STYLE)))
    if row.superseded:  # a failed request's output, retried: shown, struck through
        left = left[:-1] + [(left[-1][0], left[-1][1] + get("superseded", NO_STYLE))]
        right = [(" retried", get("note", NO_STYLE))]
    return left, right


def _fit(left: Text, right: Text, width: int) -> Text:
    """`left` cut with an ellipsis so that `right` ends at the last column."""
    room = width - right.cell_len
    if room < 4:
        left.truncate(width, overflow="ellipsis")
        return left
    if left.cell_len > room:
        left.truncate(room, overflow="ellipsis")
    left.pad_right(room - left.cell_len)
    left.append_text(right)
    return left


def fit_segments(left: list[Piece], right: list[Piece], width: int, base: Style) -> list[Segment] | None:
    """The same line as `_fit` makes, straight to segments on the `base` style (the transcript's
    fast path: a screenful of new rows is drawn on every page and every jump). None when some
    character is not one cell wide (wide or combining: then Rich does the cutting)."""
    n_right = 0
    for text, _ in right:
        if not _one_cell_each(text):
            return None
        n_right += len(text)
    room = width - n_right
    if room < 4:
        right, room = [], width
    out: list[Segment] = []
    used = 0
    for text, style in left:
        if used >= room:
            break
        if not _one_cell_each(text):
            return None
        if used + len(text) > room:
            text = text[:max(0, room - used - 1)] + "…"
        out.append(Segment(text, base + style))
        used += len(text)
    if used < room:
        out.append(Segment(" " * (room - used), base))
    for text, style in right:
        out.append(Segment(text, base + style))
    return out


def _one_cell_each(text: str) -> bool:
    return text.isascii() or cell_len(text) == len(text)


def plain_line(row: Row, width: int) -> str:
    """A row as one line of plain text, laid out as the transcript lays a one-line row (icon,
    badge, title cut with an ellipsis so its status ends at the last column), without a cursor
    column or an elapsed-time gutter: what `kernelseek run` prints, one line per row."""
    left, right = line_pieces(row, min(width, GUTTER_MIN_WIDTH - 1), None, {}, mark=False)
    b = badge(row).strip()
    if b:
        left.insert(1, (f"[{b}] ", Style()))
    segments = fit_segments(left, right, width, Style())
    if segments is None:  # a wide or combining character: Rich measures the cells
        return _fit(Text.assemble(*left, end=""), Text.assemble(*right, end=""), width).plain.rstrip()
    return "".join(seg.text for seg in segments).rstrip()


def collapsed_lines(row: Row, width: int, started: float | None, styles: Styles,
                    expanded: bool = False) -> list[Text]:
    """The row as it sits in the list: one line, or up to a few for prose (exactly
    `collapsed_height(row, width)` lines)."""
    if row.kind in MULTILINE_CAP:
        head = _prefix(row, width, started, styles)
        return _prose_lines(row, width, head, head.cell_len, styles)
    left, right = line_pieces(row, width, started, styles, expanded)
    return [_fit(Text.assemble(*left, end=""), Text.assemble(*right, end=""), width)]


def _prose_lines(row: Row, width: int, head: Text, indent: int, styles: Styles) -> list[Text]:
    height = collapsed_height(row, width)
    kind = row.kind
    first = Text(end="")
    b = badge(row)
    if b:
        first.append(b, styles.get(f"{kind}-badge", NO_STYLE))
        first.append(" ")
    title = row.title
    if kind == STREAM:
        avail = max(8, width - indent) * height - len(b) - 2
        if len(title) > avail:
            title = "…" + title[-(avail - 1):]
        title += "▌"
    first.append(title, styles.get(kind, NO_STYLE) + (styles.get("superseded", NO_STYLE) if row.superseded else NO_STYLE))
    avail = max(8, width - indent)
    wrapped = first.wrap(_CONSOLE, avail, overflow="fold", no_wrap=False)
    lines = list(wrapped)[:height]
    more = len(wrapped) > height or (row.text_len > len(row.title) and kind != STREAM)
    if more and lines:
        last = lines[-1]
        if last.cell_len >= avail:
            last.truncate(avail - 1)
        last.rstrip()
        last.append("…", styles.get("note", NO_STYLE))
    while len(lines) < height:
        lines.append(Text(end=""))
    out = []
    for i, line in enumerate(lines):
        prefix = head.copy() if i == 0 else Text(" " * indent, end="")
        prefix.append_text(line)
        out.append(prefix)
    return out


# -- expanded ---------------------------------------------------------------------------------


def _lexer_for(path: object) -> str:
    if not isinstance(path, str) or "." not in path:
        return "text"
    return _LEXERS.get(path.rsplit(".", 1)[-1].lower(), "text")


def _syntax(code: str, lexer: str) -> Syntax:
    return Syntax(clean(code), lexer, theme="ansi_dark", background_color="default",
                  word_wrap=True, line_numbers=False)


def _first_str(d: dict, keys: tuple[str, ...]) -> str | None:
    for k in keys:
        if isinstance(d.get(k), str):
            return d[k]
    return None


def diff_text(old: str, new: str, styles: Styles, path: str | None = None) -> Text:
    """An edit as a unified diff, each line styled by its sign."""
    out = Text()
    if path:
        out.append(clean_line(path) + "\n", styles.get("section", NO_STYLE))
    lines = difflib.unified_diff(clean(old).splitlines(), clean(new).splitlines(), lineterm="", n=2)
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            style = styles.get("diff-hunk", NO_STYLE)
        elif line.startswith("+"):
            style = styles.get("diff-add", NO_STYLE)
        elif line.startswith("-"):
            style = styles.get("diff-del", NO_STYLE)
        else:
            style = NO_STYLE
        out.append(line + "\n", style)
    if not out.plain.strip():
        out.append("(no change)\n", styles.get("note", NO_STYLE))
    out.rstrip()
    return out


def tool_input_view(inp: object, styles: Styles) -> RenderableType:
    """A tool's input: an edit as a diff, written code highlighted, a command as shell, else JSON."""
    if isinstance(inp, dict):
        path = _first_str(inp, ("path", "file_path", "filename"))
        old = _first_str(inp, ("old_str", "old_string", "old"))
        new = _first_str(inp, ("new_str", "new_string", "new"))
        if old is not None and new is not None:
            return diff_text(old, new, styles, path)
        patch = _first_str(inp, ("patch", "diff"))
        if patch is not None:
            return _syntax(patch, "diff")
        content = _first_str(inp, ("content", "contents", "file_text"))
        if content is not None:
            parts: list[RenderableType] = []
            if path:
                parts.append(Text(clean_line(path), styles.get("section", NO_STYLE)))
            parts.append(_syntax(content, _lexer_for(path)))
            return Group(*parts)
        cmd = inp.get("command", inp.get("cmd"))
        if isinstance(cmd, list):
            cmd = " ".join(str(c) for c in cmd)
        if isinstance(cmd, str) and len(inp) <= 3:
            return _syntax(cmd, "bash")
        if not inp:
            return Text("(no input)", styles.get("note", NO_STYLE))
    return _syntax(json.dumps(inp, indent=2, ensure_ascii=False, default=str), "json")


def output_view(output: object, styles: Styles, is_error: bool = False) -> Text:
    if not isinstance(output, str):
        output = json.dumps(output, indent=2, ensure_ascii=False, default=str)
    text = clean(output)
    lines = text.split("\n")
    more = len(lines) - OUTPUT_MAX_LINES
    if more > 0:
        text = "\n".join(lines[:OUTPUT_MAX_LINES])
    out = Text(text, styles.get("output-error" if is_error else "output", NO_STYLE))
    if more > 0:
        out.append(f"\n… {more} more lines", styles.get("note", NO_STYLE))
    if not text:
        out.append("(empty)", styles.get("note", NO_STYLE))
    return out


def _section(title: str, styles: Styles) -> Text:
    return Text(title, styles.get("section", NO_STYLE))


def scenario_table(rows: list[ScenarioRow], styles: Styles, goal: float | None, width: int = 80,
                   limit: int | None = None, compact: bool = False) -> Text:
    """Scenarios worst first, one line each: name, ratio (coloured against 1.0 and the goal),
    correctness, and (unless compact) the ratio's 95% CI and the flags or the failure.

    Laid out by hand rather than with a Rich Table: it is redrawn on every jump in a replay."""
    shown = rows if limit is None else rows[:limit]
    note = styles.get("note", NO_STYLE)
    name_w = max(6, min(24, max((len(r.name) for r in shown), default=6)))
    if width - name_w - 9 < 0 or compact:
        name_w = max(6, min(name_w, width - 9))
    out = Text(end="", no_wrap=True, overflow="ellipsis")
    if not compact:
        out.append(f"{'scenario':<{name_w}} {'ratio':>6}   {'95% CI':>9} flags\n",
                   styles.get("section", NO_STYLE))
    for r in shown:
        name = r.name if len(r.name) <= name_w else r.name[:name_w - 1] + "…"
        out.append(f"{name:<{name_w}} ")
        if r.correct is False:
            out.append(f"{'—':>6} ", styles.get("ratio-bad", NO_STYLE))
            out.append("✗", styles.get("ratio-bad", NO_STYLE))
        else:
            if r.ratio is None:
                style = note
            elif r.ratio < 1.0:
                style = styles.get("ratio-bad", NO_STYLE)
            elif goal is not None and r.ratio < goal:
                style = styles.get("ratio-mid", NO_STYLE)
            else:
                style = styles.get("ratio-good", NO_STYLE)
            out.append(f"{(f'{r.ratio:.2f}×' if r.ratio is not None else '—'):>6} ", style)
            out.append("✓" if r.correct else "?", styles.get("status-ok", NO_STYLE))
        if not compact:
            ci = f"{r.ci[0]:.2f}–{r.ci[1]:.2f}" if r.ci else ""
            rest = ", ".join(r.flags) or (r.failure or "")
            room = max(0, width - name_w - 20)
            rest = rest if len(rest) <= room else rest[:max(0, room - 1)] + "…"
            out.append(f" {ci:>9} {rest}", note)
        out.append("\n")
    if limit is not None and len(rows) > limit:
        out.append(f"… {len(rows) - limit} more\n", note)
    out.rstrip()
    return out


def expanded_body(row: Row, model: SessionModel, styles: Styles, reports: ReportCache | None,
                  goal: float | None) -> RenderableType | None:
    """What an expanded row shows below its first line (prose rows instead show all their text)."""
    kind = row.kind
    store = model.store
    if kind == TOOL:
        call = store.get(row.ei)
        parts: list[RenderableType] = []
        if call.get("type") == "tool_call":
            parts += [_section("input", styles), tool_input_view(call.get("input"), styles)]
        if row.ei2 >= 0:
            res = store.get(row.ei2)
            out = res.get("output")
            n = len(out.split("\n")) if isinstance(out, str) else 0
            label = "output" + (" (error)" if res.get("is_error") else "") + (f", {n} lines" if n > 1 else "")
            parts += [_section(label, styles), output_view(out, styles, bool(res.get("is_error")))]
        else:
            parts.append(Text("running…", styles.get("note", NO_STYLE)))
        return Group(*parts)
    if kind == EVAL:
        if row.ref < 0:
            return Text("running…", styles.get("note", NO_STYLE))
        rec = model.eval_rows[row.ref]
        s = rec.summary
        parts = []
        facts = []
        for key in ("geomean", "min_ratio", "fast_1", "passed", "total", "goal_met", "build_ok",
                    "eval_seed", "candidate_sha256"):
            if key in s and s[key] is not None:
                facts.append(f"{key} {s[key]}")
        parts.append(Text(clean_line(" · ".join(facts))))
        for key in ("reasons", "failing", "violations", "flags"):
            v = s.get(key)
            if v:
                parts.append(Text(f"{key}: " + "; ".join(clean_line(x) for x in v), styles.get("note", NO_STYLE)))
        if s.get("error"):
            parts.append(Text("error: " + clean_line(s["error"]), styles.get("error", NO_STYLE)))
        scen = reports.scenarios_for(s, rec.report, rec.n) if reports else []
        if scen:
            parts.append(scenario_table(scen, styles, goal, width=100))
        elif rec.report:
            parts.append(Text(f"report {clean_line(rec.report)} not found", styles.get("note", NO_STYLE)))
        return Group(*parts)
    if kind == DECISION:
        rec = model.decisions[row.ref]
        parts = [Text(clean(rec.evidence))]
        if rec.about_seq is not None:
            parts.append(Text(f"about event {rec.about_seq}", styles.get("note", NO_STYLE)))
        for i, s in enumerate(rec.suggestions[:9], 1):
            parts.append(Text(f"{i}. {clean_line(s.get('text'))}", styles.get("note", NO_STYLE)))
        for h in rec.answers:
            parts.append(Text(f"answered by event {model.humans[h].seq}", styles.get("note", NO_STYLE)))
        return Group(*parts)
    if kind in (START, OTHER, ERROR, STOP, END):
        ev = dict(store.get(row.ei))
        return _syntax(json.dumps(ev, indent=2, ensure_ascii=False, default=str), "json")
    if kind in (THINKING, COMPACTION):
        return Text(clean(store.get(row.ei).get("text") or ""), styles.get("thinking", NO_STYLE))
    return None


def expanded_prose(row: Row, model: SessionModel, width: int, started: float | None,
                   styles: Styles) -> list[Text]:
    """A text, human or decision row expanded: all its text, wrapped, original line breaks kept."""
    head = _prefix(row, width, started, styles)
    indent = head.cell_len
    ev = model.content_event(row)
    if row.kind == DECISION:
        raw = ev.get("evidence")
        raw = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)
    else:
        raw = ev.get("text") if isinstance(ev.get("text"), str) else row.title
    body = Text(end="")
    b = badge(row)
    if b:
        body.append(b, styles.get(f"{row.kind}-badge", NO_STYLE))
        body.append(" ")
    body.append_text(safe_text(raw, _style_name(row.kind, styles)))
    avail = max(8, width - indent)
    out = []
    for i, line in enumerate(body.wrap(_CONSOLE, avail, overflow="fold")):
        prefix = head.copy() if i == 0 else Text(" " * indent, end="")
        prefix.append_text(line)
        out.append(prefix)
    return out or [head]


def _style_name(kind: str, styles: Styles) -> Style:
    return styles.get(kind, NO_STYLE)

