"""Benchmark figures in a foreign transcript's tool output, as `eval_result` events marked inferred.

Our own sessions carry evaluator reports; Claude Code and Codex sessions only carry what the
agent's commands printed. So that the metric detectors (stall, suspicious_win, regression,
correctness_break) work on those too, this module reads tool output for figures a benchmark or
a test run states outright, and adds an `eval_result` after the tool result they came from::

    {"type": "eval_result", "inferred": true, "call_id": "toolu_…", "evidence": ["Speedup: 2.46x"],
     "summary": {"geomean": 2.46, "geomean_from": "stated", "ratios": {...}, "all_correct": true,
                 "passed": 12, "total": 12, "best_geomean": 2.46, ...}}

Precision over recall: a figure is taken only when it is unambiguous, and only from output a
command printed (shell tools), or from reading a file whose path says it is a result or report.
Source listings (cat/sed/grep of code), file edits and prose are never read. The patterns:

- geomean: "geomean", "geo-mean" or "geometric mean", optionally "speedup"/"ratio", then a
  number (optionally followed by x or ×) on the same line -> `geomean` (geomean_from "stated").
- speedup: "speedup: 2.46x" / "speed-up = 1.3×", or "2.5x faster" / "1.2× speedup"; "2x slower"
  is read as 0.5. One such figure -> `geomean` (from "speedup"); several -> per-scenario `ratios`
  and their geometric mean (from "ratios").
- tables: a markdown table with a column headed speedup / ratio / "vs baseline|seed|ref":
  each row's number in it is a scenario's ratio (N/A and blanks are skipped).
- pass/fail: pytest's summary line ("=== 3 failed, 12 passed in 0.52s ==="), ctest's
  "100% tests passed, 0 tests failed out of 12", go test's "--- PASS:"/"--- FAIL:" and
  "ok  <pkg>"/"FAIL <pkg>" lines, "Running test: … PASSED|FAILED" lines, "N/M tests passed",
  "all tests passed", "correctness: PASS|FAIL" -> `passed`, `total`, `all_correct`.

Times (ms, us) and TFLOP/s alone give no ratio and no verdict, so they make no eval_result: a
summary without either would only feed detectors noise. Numbers must be finite and positive;
ratios above 10,000 are dropped as misreads.

The agent's own words are read too (`extract_text_figures`), because a foreign agent often states
its results only there: "178/180 correct", "2.5x faster than the seed", "speedup: 1.31x", "310
TFLOP/s of the 790 peak". Such an `eval_result` carries `source: "text"` and follows the
assistant text; a ratio counts only in a sentence about speed (faster, slower, speedup, vs, over,
than), a count only in one about tests or correctness, and a throughput only beside a peak it
can be set against (`pct_peak`, per scenario). Ranges ("30-40x") and plans ("we need 2x") are
not figures.
"""
from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field

from sessions.importers.common import ImportStats

SHELL_TOOLS = frozenset({
    "Bash", "BashOutput", "exec_command", "shell", "local_shell", "container.exec", "write_stdin",
    "run_command", "run_terminal_cmd", "execute_command", "terminal",
})
READ_TOOLS = frozenset({"Read", "read_file", "view", "ReadFile"})
# commands that print files rather than run anything: their output is read only when the file
# named looks like a result
VIEW_COMMANDS = frozenset({"cat", "head", "tail", "sed", "nl", "less", "more", "bat", "awk", "jq"})
SEARCH_COMMANDS = frozenset({"grep", "rg", "ag", "ack", "find", "ls", "git", "diff", "wc", "tree", "fd"})
RESULT_PATH_RE = re.compile(r"(result|report|bench|perf|timing|eval|speedup|profile)[^/]*$|(?:^|/)(results?|reports?)/",
                            re.I)
RESULT_SUFFIXES = (".md", ".txt", ".json", ".csv", ".log", ".out", ".tsv")
MAX_OUTPUT = 400_000  # characters of one output that are scanned

_NUM = r"(\d+(?:\.\d+)?)"
GEOMEAN_RE = re.compile(
    r"\b(?:geo-?mean|geometric[ _-]mean)\b(?:\s*(?:speed-?up|ratio|of\s+(?:speed-?ups|ratios)))?"
    r"(?:\s*\([^)\n]{0,30}\))?\s*([:=])?\s*" + _NUM + r"\s*([x×])?(?![\w.])", re.I)
SPEEDUP_RE = re.compile(r"\bspeed-?up\b(?:\s*\([^)\n]{0,30}\))?\s*[:=]\s*" + _NUM + r"\s*[x×]?(?![\w.])", re.I)
TIMES_RE = re.compile(r"(?<![\w.])" + _NUM + r"\s?[x×]\s+(faster|speed-?up|slower)\b", re.I)
HEADING_RE = re.compile(r"^\s*(?:=+\s*(.+?)\s*=+|#+\s+(.+?)|-{2,}\s*(.+?)\s*-{2,})\s*$")
TABLE_RATIO_HEAD_RE = re.compile(r"speed-?up|\bratio\b|\bvs\.?\s*(?:base(?:line)?|seed|ref(?:erence)?)\b", re.I)
LINE_NUMBER_RE = re.compile(r"^ *\d+(?:→|\t)", re.M)  # `cat -n` / `nl` prefixes of file views
CELL_NUM_RE = re.compile(r"^\s*\**\s*" + _NUM + r"\s*[x×]?\s*\**\s*$")

PYTEST_RE = re.compile(r"^=+ (.*?\b(?:passed|failed)\b.*?) in [\d.]+m?s(?: \([^)]*\))? =+\s*$", re.M)
PYTEST_PART_RE = re.compile(r"(\d+) (passed|failed|errors?|xfailed|xpassed|skipped)")
CTEST_RE = re.compile(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)")
GO_CASE_RE = re.compile(r"^\s*--- (PASS|FAIL): \S+ \(\d+(?:\.\d+)?s\)", re.M)
GO_PKG_RE = re.compile(r"^(ok|FAIL)\s+[\w./-]+\s+(?:\d+(?:\.\d+)?s|\(cached\)|\[[^\]\n]*\])", re.M)
RUNNING_TEST_RE = re.compile(r"^\s*(?i:(?:Running )?test)\b.*?\b(PASSED|FAILED)\s*$", re.M)
FRACTION_RE = re.compile(r"\b(\d+)\s*/\s*(\d+)\s+(?:tests?|cases?|scenarios?|checks?)\s+passed\b", re.I)
ALL_PASSED_RE = re.compile(r"\ball (?:\d+ )?(?:tests?|cases?|scenarios?|checks?) (?:passed|pass)\b", re.I)
CORRECTNESS_RE = re.compile(r"\bcorrect(?:ness)?\s*[:=]\s*(pass(?:ed)?|fail(?:ed)?|true|false|ok)\b", re.I)


@dataclass
class Figures:
    """What one tool output states."""

    geomean: float | None = None
    geomean_from: str | None = None
    ratios: dict[str, float] = field(default_factory=dict)
    passed: int | None = None
    total: int | None = None
    all_correct: bool | None = None
    evidence: list[str] = field(default_factory=list)
    pct_peak: dict[str, float] = field(default_factory=dict)  # {name: % of a peak stated beside it}

    def __bool__(self) -> bool:
        return self.geomean is not None or self.all_correct is not None or bool(self.pct_peak)

    def summary(self) -> dict:
        s: dict = {}
        if self.geomean is not None:
            s["geomean"] = round(self.geomean, 6)
            s["geomean_from"] = self.geomean_from
        if self.ratios:
            s["ratios"] = {k: round(v, 6) for k, v in self.ratios.items()}
            s["min_ratio"] = round(min(self.ratios.values()), 6)
            s["fast_1"] = round(sum(1 for v in self.ratios.values() if v > 1.0) / len(self.ratios), 6)
        if self.all_correct is not None:
            s["all_correct"] = self.all_correct
        if self.passed is not None:
            s["passed"] = self.passed
        if self.total is not None:
            s["total"] = self.total
        if self.pct_peak:  # per-scenario shares of a peak, the shape the detectors read
            s["scenarios"] = [{"name": k, "pct_peak": v} for k, v in self.pct_peak.items()]
        return s


def _ratio(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) and 0.0 < v <= 10_000.0 else None


def _geomean(values) -> float:
    vals = list(values)
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def _unique(label: str, taken: dict) -> str:
    label = label[:80]
    if label in taken:
        n = 2
        while f"{label} #{n}" in taken:
            n += 1
        label = f"{label} #{n}"
    return label


def _label(line: str, start: int, heading: str | None, taken: dict) -> str:
    """A scenario's name: the text before the figure on its line, else the last heading."""
    before = line[:start].strip(" \t|*-:=>–")
    return _unique(before or heading or "speedup", taken)


def _is_number_cell(cell: str) -> bool:
    return bool(re.match(r"^\s*[-+]?\d[\d.,]*\s*[a-zA-Zμ%×/]{0,6}\s*$", cell)) or cell.upper() in ("N/A", "NA", "-")


def _table_ratios(lines: list[str], fig: Figures) -> None:
    """Ratios from markdown tables that have a speedup/ratio column."""
    i = 0
    while i < len(lines) - 2:
        head = lines[i]
        if head.count("|") >= 2 and re.match(r"^\s*\|?\s*:?-{3,}", lines[i + 1]) and TABLE_RATIO_HEAD_RE.search(head):
            cols = [c.strip() for c in head.strip().strip("|").split("|")]
            ratio_cols = [k for k, c in enumerate(cols) if TABLE_RATIO_HEAD_RE.search(c)]
            col = ratio_cols[-1]
            j = i + 2
            while j < len(lines) and lines[j].count("|") >= 2:
                cells = [c.strip() for c in lines[j].strip().strip("|").split("|")]
                if len(cells) == len(cols):
                    m = CELL_NUM_RE.match(cells[col])
                    value = _ratio(m.group(1)) if m else None
                    if value is not None:
                        words = [c for k, c in enumerate(cells) if k != col and c and not _is_number_cell(c)]
                        fig.ratios[_unique(" ".join(words) or f"row {j - i - 1}", fig.ratios)] = value
                        if len(fig.evidence) < 8:
                            fig.evidence.append(lines[j].strip()[:160])
                j += 1
            i = j
        else:
            i += 1


def _pass_fail(text: str, fig: Figures) -> None:
    passed = failed = 0
    found = False
    for m in PYTEST_RE.finditer(text):
        found = True
        for n, what in PYTEST_PART_RE.findall(m.group(1)):
            if what == "passed":
                passed += int(n)
            elif what in ("failed", "error", "errors"):
                failed += int(n)
        fig.evidence.append(m.group(0).strip()[:160])
    if not found:
        m = CTEST_RE.search(text)
        if m:
            found = True
            total, failed = int(m.group(3)), int(m.group(2))
            passed = total - failed
            fig.evidence.append(m.group(0))
    if not found:
        cases = GO_CASE_RE.findall(text) or [m.upper() for m in RUNNING_TEST_RE.findall(text)]
        if cases:
            found = True
            passed = sum(1 for c in cases if c.startswith("PASS"))
            failed = len(cases) - passed
            fig.evidence.append(f"{passed} test cases passed, {failed} failed")
        pkgs = GO_PKG_RE.findall(text)
        if pkgs and not cases:
            found = True
            failed_pkgs = sum(1 for p in pkgs if p == "FAIL")
            fig.all_correct = failed_pkgs == 0
            fig.evidence.append(f"go test: {len(pkgs) - failed_pkgs} packages ok, {failed_pkgs} failed")
            return
    if not found:
        m = FRACTION_RE.search(text)
        if m and int(m.group(1)) <= int(m.group(2)):
            found = True
            passed, failed = int(m.group(1)), int(m.group(2)) - int(m.group(1))
            fig.evidence.append(m.group(0))
    if found:
        fig.passed, fig.total = passed, passed + failed
        fig.all_correct = failed == 0 and passed > 0
        return
    m = CORRECTNESS_RE.search(text)
    if m:
        fig.all_correct = m.group(1).lower() in ("pass", "passed", "true", "ok")
        fig.evidence.append(m.group(0))
    elif ALL_PASSED_RE.search(text):
        fig.all_correct = True
        fig.evidence.append(ALL_PASSED_RE.search(text).group(0))


def extract_figures(text: str) -> Figures:
    """The benchmark figures and pass/fail verdict one output states (empty Figures if none)."""
    fig = Figures()
    if not text:
        return fig
    text = LINE_NUMBER_RE.sub("", text[:MAX_OUTPUT])
    stated = None
    heading = None
    speedups: dict[str, float] = {}
    lines = text.splitlines()
    for line in lines:
        h = HEADING_RE.match(line)
        if h:
            heading = next(g for g in h.groups() if g)[:60]
            continue
        m = GEOMEAN_RE.search(line)
        # "geomean: 1.2", "geomean 1.2x", "geomean 1.13" yes; "geomean 12 scenarios" no
        if m and (m.group(1) or m.group(3) or "." in m.group(2)):
            value = _ratio(m.group(2))
            if value is not None:
                stated = value
                fig.evidence.append(line.strip()[:160])
            continue
        for m in SPEEDUP_RE.finditer(line):
            value = _ratio(m.group(1))
            if value is not None:
                speedups[_label(line, m.start(), heading, speedups)] = value
                fig.evidence.append(line.strip()[:160])
        for m in TIMES_RE.finditer(line):
            value = _ratio(m.group(1))
            if value is not None and not SPEEDUP_RE.search(line):
                if m.group(2).lower() == "slower":
                    value = 1.0 / value
                speedups[_label(line, m.start(), heading, speedups)] = value
                fig.evidence.append(line.strip()[:160])
    if "|" in text:
        _table_ratios(lines, fig)
    for label, value in speedups.items():
        fig.ratios.setdefault(label, value)
    if stated is not None:
        fig.geomean, fig.geomean_from = stated, "stated"
    elif len(fig.ratios) == 1:
        fig.geomean, fig.geomean_from = next(iter(fig.ratios.values())), "speedup"
    elif fig.ratios:
        fig.geomean, fig.geomean_from = _geomean(fig.ratios.values()), "ratios"
    _pass_fail(text, fig)
    del fig.evidence[8:]
    return fig


def _command_words(tool_input: dict) -> list[str]:
    cmd = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(cmd, list):
        return [str(c) for c in cmd]
    if not isinstance(cmd, str):
        return []
    try:
        return shlex.split(cmd, comments=True)
    except ValueError:
        return cmd.split()


def _looks_like_result_file(path: str) -> bool:
    return bool(path) and path.lower().endswith(RESULT_SUFFIXES) and bool(RESULT_PATH_RE.search(path))


def output_worth_reading(call: dict | None) -> bool:
    """Whether a tool call's output is a measurement (a command run, or a result file read)."""
    if call is None:
        return False
    name = str(call.get("name") or "")
    tool_input = call.get("input") if isinstance(call.get("input"), dict) else {}
    if name in READ_TOOLS:
        return _looks_like_result_file(str(tool_input.get("file_path") or tool_input.get("path") or ""))
    if name not in SHELL_TOOLS:
        return False
    words = _command_words(tool_input)
    # the program that runs: skip "cd x &&", env assignments and "export" prefixes
    segments: list[list[str]] = [[]]
    for w in words:
        if w in ("&&", "||", ";", "|"):
            segments.append([])
        else:
            segments[-1].append(w)
    programs = []
    for seg in segments:
        seg = [w for w in seg if "=" not in w.split("/")[0]]
        if seg and seg[0] not in ("cd", "export", "source", ".", "set", "time", "timeout", "env"):
            programs.append((seg[0].rsplit("/", 1)[-1], seg[1:]))
        elif len(seg) > 1 and seg[0] in ("time", "timeout", "env"):
            programs.append((seg[-1].rsplit("/", 1)[-1], []))
    if not programs:
        return bool(words)
    first, args = programs[0]
    if first in VIEW_COMMANDS:
        return any(_looks_like_result_file(a) for a in args)
    if first in SEARCH_COMMANDS:
        return False
    return True


def add_inferred_evals(events: list[dict], stats: ImportStats | None = None, *, text: bool = True) -> list[dict]:
    """The events with an inferred eval_result after every tool result that states figures, and
    (with `text`) after every assistant text of the main thread that states results."""
    calls: dict[str, dict] = {}
    out: list[dict] = []
    best: float | None = None
    n = from_text = 0
    for ev in events:
        out.append(ev)
        kind = ev.get("type")
        if kind == "tool_call":
            calls[str(ev.get("id"))] = ev
            continue
        if kind == "tool_result" and output_worth_reading(calls.get(str(ev.get("id")))):
            fig = extract_figures(str(ev.get("output") or ""))
            source = None
        elif kind == "assistant_text" and text and not ev.get("sidechain") and isinstance(ev.get("text"), str):
            fig = extract_text_figures(ev["text"])
            source = "text"
        else:
            continue
        if not fig:
            continue
        n += 1
        from_text += source == "text"
        summary = fig.summary()
        if fig.geomean is not None and fig.all_correct is not False:
            best = fig.geomean if best is None else max(best, fig.geomean)
        if best is not None:
            summary["best_geomean"] = round(best, 6)
        extra = {k: ev[k] for k in ("sidechain", "agent_id", "parent_tool_id") if k in ev}
        if source is None:
            extra["call_id"] = ev.get("id")
        else:
            extra["source"] = source
        out.append({"v": ev.get("v", 1), "seq": 0, "t": ev.get("t"), "type": "eval_result",
                    "summary": summary, "inferred": True, "n": n, "evidence": fig.evidence, **extra})
    for i, ev in enumerate(out):
        ev["seq"] = i
    if stats is not None and n:
        stats.events["eval_result"] += n
        stats.note(f"{n} eval_result events inferred from benchmark or test output"
                   + (f" ({from_text} from the agent's own words)" if from_text else ""))
    return out


# -- figures the agent states in its own words ------------------------------------------------------

_SPEED_WORDS = re.compile(r"\b(?:faster|slower|speed-?ups?|quicker|vs\.?|versus|over|than|compared|geo-?mean|"
                          r"ratio)\b", re.I)
_TEXT_RATIO = re.compile(r"(?<![\w.\-–])(\d+(?:\.\d+)?)\s*[x×](?![\w.])(?!\s*\d)", re.I)
_RANGE = re.compile(r"\d(?:\.\d+)?\s*[x×]?\s*(?:-|–|to)\s*\d+(?:\.\d+)?\s*[x×]", re.I)
_PLAN = re.compile(r"\b(?:need|needs|needed|target|goal|aim|want|should|could|would|expect\w*|hope|might|may|"
                   r"if|to reach|to get|up to|at least|potential(?:ly)?|estimate\w*|actually|was not|wasn't|"
                   r"not real|fake|bogus|invalid|misleading|bug)\b", re.I)
_TEST_WORDS = re.compile(r"\b(?:tests?|correct(?:ness)?|pass(?:ed|es|ing)?|fail(?:ed|s|ing|ures?)?|scenarios?|cases?|"
                         r"checks?|match(?:es|ed|ing)?|within tolerance)\b", re.I)
_TEXT_FRACTION = re.compile(r"(?<![\w./])(\d+)\s*/\s*(\d+)(?![\w./])\s*(?:\w+\s+){0,2}?(?:tests?\s+)?"
                            r"(?:correct|pass(?:ed|ing)?|match(?:ed|ing)?|within tolerance|ok|green|succeed\w*)\b",
                            re.I)
_TEXT_FAILED = re.compile(r"(?<![\w./])(\d+)\s+(?:tests?|cases?|scenarios?|checks?)\s+fail(?:ed|ing|s)?\b", re.I)
_TEXT_ALL_PASS = re.compile(r"\ball (\d+) (?:tests?|cases?|scenarios?|checks?) (?:pass|passed|passing)\b", re.I)
_THROUGHPUT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(T|G|P)(?:FLOP/?s|FLOPS|B/s)\b")
_PEAK_FIGURE = re.compile(r"\b(?:peak|theoretical|roofline|maximum|max)\b[^.;\n]{0,40}?(\d+(?:\.\d+)?)|"
                          r"(\d+(?:\.\d+)?)\s*(?:T|G|P)?(?:FLOP/?s|FLOPS|B/s)?\s*(?:theoretical\s+)?peak\b", re.I)
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")


def extract_text_figures(text: str) -> Figures:
    """The results an assistant text states outright (see the module's docstring)."""
    fig = Figures()
    if not text or not any(c.isdigit() for c in text):
        return fig
    body = re.sub(r"```.*?(?:```|\Z)", "\n", text[:MAX_OUTPUT], flags=re.S)
    passed = failed = None
    pct: dict[str, float] = {}
    for sentence in _SENT.split(body):
        s = sentence.strip()
        if not s or s.endswith("?") or _PLAN.search(s):
            continue
        if _TEST_WORDS.search(s) and passed is None:
            m = _TEXT_FRACTION.search(s)
            if m and 0 < int(m.group(2)) <= 100_000 and int(m.group(1)) <= int(m.group(2)):
                passed, failed = int(m.group(1)), int(m.group(2)) - int(m.group(1))
                fig.evidence.append(s[:160])
            else:
                m = _TEXT_ALL_PASS.search(s)
                if m:
                    passed, failed = int(m.group(1)), 0
                    fig.evidence.append(s[:160])
                else:
                    m = _TEXT_FAILED.search(s)
                    if m and int(m.group(1)) > 0:
                        failed = int(m.group(1))
                        fig.evidence.append(s[:160])
        if _SPEED_WORDS.search(s) and not _RANGE.search(s):
            for m in _TEXT_RATIO.finditer(s):
                value = _ratio(m.group(1))
                if value is None:
                    continue
                after = s[m.end(): m.end() + 12].lower()
                if "slower" in after:
                    value = 1.0 / value
                label = _label(s, m.start(), None, fig.ratios)
                fig.ratios[label] = value
                if len(fig.evidence) < 8:
                    fig.evidence.append(s[:160])
        tp = _THROUGHPUT.search(s)
        peak = _PEAK_FIGURE.search(s)
        if tp and peak:
            got = float(tp.group(1))
            top = float(peak.group(1) or peak.group(2))
            if top > 0 and got != top:
                pct[_unique(s[: tp.start()].strip(" -*:|") or "throughput", pct)] = round(100.0 * got / top, 1)
                if len(fig.evidence) < 8:
                    fig.evidence.append(s[:160])
    if len(fig.ratios) == 1:
        fig.geomean, fig.geomean_from = next(iter(fig.ratios.values())), "speedup"
    elif fig.ratios:
        fig.geomean, fig.geomean_from = _geomean(fig.ratios.values()), "ratios"
    if failed is not None:
        if passed is not None:
            fig.passed, fig.total = passed, passed + failed
        fig.all_correct = failed == 0
    fig.pct_peak = pct
    del fig.evidence[8:]
    return fig
