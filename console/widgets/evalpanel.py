"""The evaluator panel: latest verdict, geomean over the session, scenarios worst first, flags,
and a progress bar while an evaluation runs. Shows the state it is given (live: the latest;
replay: as of the cursor)."""
from __future__ import annotations

from rich.console import Group
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import ProgressBar, Static

from console.evals import ReportCache
from console.model import EvalRecord, ViewState
from console.plot import braille_plot
from console.render import scenario_table
from console.safe_text import clean_line

_STYLES = ("verdict-goal", "verdict-pass", "verdict-fail", "plot-data", "plot-goal", "axis",
           "section", "note", "ratio-good", "ratio-mid", "ratio-bad", "status-ok", "flag")


class EvalPanel(VerticalScroll, can_focus=False):
    COMPONENT_CLASSES = {f"evalpanel--{n}" for n in _STYLES}

    state: reactive[ViewState | None] = reactive(None, always_update=True)

    def __init__(self, reports: ReportCache | None = None, **kw) -> None:
        super().__init__(**kw)
        self.reports = reports
        self._shown: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="eval-verdict")
        yield ProgressBar(id="eval-progress", show_eta=False, show_percentage=True)
        yield Static(id="eval-plot")
        yield Static(id="eval-scenarios")
        yield Static(id="eval-flags")

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(f"evalpanel--{name}", partial=True)

    def watch_state(self, state: ViewState | None) -> None:
        if state is None or not self.is_mounted:
            return
        width = max(16, self.scrollable_content_region.width or self.size.width or 30)
        key = (id(state.latest_eval), len(state.history), state.progress, state.running_eval_n,
               width, state.goal_geomean)
        if key == self._shown:
            return
        self._shown = key
        self._show_progress(state)
        self.query_one("#eval-verdict", Static).update(self._verdict(state.latest_eval, state))
        self.query_one("#eval-plot", Static).update(self._plot(state, width))
        table, flags = self._scenarios(state.latest_eval, state, width)
        self.query_one("#eval-scenarios", Static).update(table)
        self.query_one("#eval-flags", Static).update(flags)

    def on_resize(self) -> None:
        # re-render for the new width after this layout pass (a layout asked for during a
        # resize is lost, and the children would keep heights measured at the old width)
        self._shown = None
        self.call_after_refresh(self.watch_state, self.state)

    def _show_progress(self, state: ViewState) -> None:
        bar = self.query_one("#eval-progress", ProgressBar)
        if state.progress is None:
            bar.display = False
            return
        done, total, _ = state.progress
        bar.display = True
        bar.update(total=max(total, 1), progress=done)

    def _verdict(self, rec: EvalRecord | None, state: ViewState) -> Text:
        out = Text(end="")
        if state.progress is not None:
            done, total, scen = state.progress
            n = f" #{state.running_eval_n}" if state.running_eval_n is not None else ""
            out.append(f"evaluating{n}: {done}/{total} {clean_line(scen)}\n", self._s("note"))
        if rec is None:
            out.append("no evaluation yet", self._s("note"))
            return out
        s = rec.summary
        if s.get("goal_met"):
            style, word = self._s("verdict-goal"), "GOAL MET"
        elif rec.all_correct:
            style, word = self._s("verdict-pass"), "correct"
        else:
            style, word = self._s("verdict-fail"), "INCORRECT" if s.get("build_ok", True) else "BUILD FAILED"
        n = f"#{rec.n} " if rec.n is not None else ""
        out.append(f"{n}{word}", style)
        if s.get("passed") is not None and s.get("total") is not None:
            out.append(f"  {s['passed']}/{s['total']}", style)
        g = rec.geomean
        out.append("\n")
        out.append("geomean ", self._s("note"))
        out.append(f"{g:.3f}×" if g is not None else "—", style)
        if state.goal_geomean is not None:
            out.append(f" (goal {state.goal_geomean:.2f}×)", self._s("note"))
        facts = []
        if rec.best is not None:
            facts.append(f"best {rec.best:.3f}×")
        mr = s.get("min_ratio")
        if isinstance(mr, (int, float)):
            facts.append(f"min {mr:.2f}×")
        f1 = s.get("fast_1")
        if isinstance(f1, (int, float)):
            facts.append(f"fast₁ {f1:.0%}")
        if facts:
            out.append("\n" + "  ".join(facts), self._s("note"))
        return out

    def _plot(self, state: ViewState, width: int) -> Text | Group:
        values = list(state.history)
        if not values:
            return Text("", end="")
        plot_w = max(4, width - 6)
        height = 3 if width < 40 else 4
        lines, kinds, lo, hi = braille_plot(values, plot_w, height, state.goal_geomean)
        out = Text(end="")
        style_of = {"data": self._s("plot-data"), "goal": self._s("plot-goal"),
                    "both": self._s("plot-data")}
        for i, (line, ks) in enumerate(zip(lines, kinds)):
            label = f"{hi:5.2f}" if i == 0 else (f"{lo:5.2f}" if i == len(lines) - 1 else "")
            out.append(f"{label:>5} ", self._s("axis"))
            for ch, k in zip(line, ks):
                out.append(ch, style_of.get(k, self._s("axis")))
            out.append("\n")
        out.append(f"{'':>5} geomean, {len(values)} eval{'s' if len(values) != 1 else ''}",
                   self._s("axis"))
        return out

    def _scenarios(self, rec: EvalRecord | None, state: ViewState, width: int):
        if rec is None:
            return Text("", end=""), Text("", end="")
        rows = self.reports.scenarios_for(rec.summary, rec.report, rec.n) if self.reports else []
        styles = {n: self._s(n) for n in _STYLES}
        compact = width < 48
        limit = 8 if compact else 16
        flags = Text(end="")
        s = rec.summary
        for key in ("flags", "failing", "reasons"):
            v = s.get(key)
            if v:
                flags.append(f"{key}: ", self._s("section"))
                flags.append("; ".join(clean_line(x) for x in v[:6]) + "\n", self._s("flag"))
        if s.get("error"):
            flags.append("error: ", self._s("section"))
            flags.append(clean_line(s["error"]) + "\n", self._s("verdict-fail"))
        flags.rstrip()
        if not rows:
            note = "scenarios: report not found" if rec.report else ""
            return Text(note, self._s("note"), end=""), flags
        return scenario_table(rows, styles, state.goal_geomean, limit=limit, compact=compact), flags
