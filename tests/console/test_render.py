"""Rows, scenarios and the plot as they are drawn (pure functions, no app)."""
from __future__ import annotations

import json

from console.evals import ReportCache, scenario_rows
from console.model import SessionModel
from console.plot import braille_plot, sparkline
from console.render import collapsed_height, collapsed_lines, diff_text, tool_input_view
from console.store import MemoryEventStore
from rich.console import Console
from rich.syntax import Syntax


def test_scenarios_are_listed_worst_first():
    rows = scenario_rows([
        {"name": "fast", "correct": True, "ratio": 1.4},
        {"name": "broken", "correct": False, "ratio": None, "failure": "NaN in y"},
        {"name": "slow", "correct": True, "ratio": 0.7, "ci": [0.69, 0.71], "flags": ["noisy"]},
        {"name": "untimed", "correct": True},
    ])
    assert [r.name for r in rows] == ["broken", "untimed", "slow", "fast"]
    assert rows[2].ci == (0.69, 0.71) and rows[2].flags == ("noisy",)
    assert rows[0].failure == "NaN in y"


def test_reports_are_found_by_the_event_or_by_number(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "0003.json").write_text(json.dumps({"scenarios": [{"name": "a", "correct": True, "ratio": 1.1}]}))
    cache = ReportCache(tmp_path)
    assert cache.scenarios_for({}, "evals/0003.json", None)[0].name == "a"
    assert cache.scenarios_for({}, "0003.json", None)[0].name == "a"
    assert cache.scenarios_for({}, None, 3)[0].name == "a"
    assert cache.scenarios_for({}, "evals/0009.json", 9) == []
    inline = {"scenarios": [{"name": "z", "correct": False}]}
    assert cache.scenarios_for(inline, "evals/0003.json", 3)[0].name == "z"


def test_braille_plot_marks_data_and_goal():
    lines, kinds, lo, hi = braille_plot([0.9, 1.0, None, 1.1, 1.2], width=10, height=3, goal=1.15)
    assert len(lines) == 3 and all(len(line) == 10 for line in lines)
    assert all("\u2800" <= ch <= "\u28ff" for line in lines for ch in line)
    flat = [k for row in kinds for k in row]
    assert "data" in flat and "goal" in flat
    assert lo < 0.9 and hi > 1.2
    assert sparkline([1, 2, 3], 3) == "▁▄█"
    many = braille_plot([float(i % 7) for i in range(500)], width=20, height=2)[0]
    assert all(len(line) == 20 for line in many)


def test_collapsed_rows_fit_their_computed_height_at_every_width():
    text = "word " * 60
    events = [{"v": 1, "seq": 0, "t": 1.0, "type": "assistant_text", "text": text},
              {"v": 1, "seq": 1, "t": 2.0, "type": "decision_point", "kind": "stall", "evidence": text},
              {"v": 1, "seq": 2, "t": 3.0, "type": "tool_call", "id": "a", "name": "run", "input": {"command": text}}]
    m = SessionModel(MemoryEventStore(events))
    m.add(events)
    for width in (40, 80, 120, 200):
        for row in m.rows:
            lines = collapsed_lines(row, width, 1.0, {})
            assert len(lines) == collapsed_height(row, width)
            assert all(line.cell_len <= width for line in lines)
    assert collapsed_height(m.rows[0], 80) == 3 and collapsed_lines(m.rows[0], 80, 1.0, {})[-1].plain.endswith("…")


def test_edits_show_as_diffs_and_writes_as_code():
    d = diff_text("a = 1\nb = 2\n", "a = 1\nb = 3\n", {}, "k.c")
    assert "-b = 2" in d.plain and "+b = 3" in d.plain and d.plain.startswith("k.c")
    view = tool_input_view({"path": "k.cu", "content": "__global__ void f() {}"}, {})
    console = Console(width=60, record=True)
    console.print(view)
    assert "__global__" in console.export_text()
    assert isinstance(tool_input_view({"command": "make"}, {}), Syntax)


def test_the_fast_line_path_draws_what_the_rich_path_draws():
    from rich.style import Style

    from console.render import fit_segments, line_pieces
    from synthetic_session import synthetic_events

    events = list(synthetic_events(120))
    m = SessionModel(MemoryEventStore(events))
    m.add(events)
    wide = next(r for r in m.rows if r.kind == "tool")
    wide.title = "run 日本語 wide"  # wide characters take Rich's path
    checked = skipped = 0
    for width in (30, 80, 125):
        for row in m.rows:
            if row.kind in ("text", "decision", "human", "stream"):
                continue
            segments = fit_segments(*line_pieces(row, width, 1.0, {}), width, Style())
            if segments is None:
                assert row is wide
                skipped += 1
                continue
            assert "".join(s.text for s in segments) == collapsed_lines(row, width, 1.0, {})[0].plain
            checked += 1
    assert checked > 100 and skipped == 3
