"""Task specs: load and validate a task folder's task.yaml, expand its scenarios, pick subsets.

Every problem in task.yaml is one `TaskError` naming the file, the line and the field, so a task
author (or an agent) can fix it without reading this code. docs/evaluator.md is the format.
"""
from __future__ import annotations

import fnmatch
import hashlib
import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from evaluator.abi import ParamField
from evaluator.errors import TaskError
from evaluator.harness import ELEMENT_TYPES, ElementType, load_harness
from evaluator.yamlspan import SpanDict, SpanList, YamlSyntaxError, load_yaml

BACKENDS = ("cuda", "cpu")
SCALAR_TYPES = ("i32", "i64", "u32", "u64", "f32", "f64")
ROOFLINES = ("memory", "fp32", "bf16_tensor", "fp16_tensor")
NAME_RE = re.compile(r"^[A-Za-z0-9_.=-]+$")
C_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_SOURCE_PATTERNS = (
    r"\bdlopen\b", r"\bdlsym\b", r"\bdlmopen\b", r"\bsystem\s*\(", r"\bpopen\s*\(",
    r"\bfork\s*\(", r"\bexec[lv]p?e?\s*\(",
)
_LIBS_COMMON = (
    "libc.so.*", "libm.so.*", "libgcc_s.so.*", "libstdc++.so.*", "ld-linux*", "libdl.so.*",
    "libpthread.so.*", "librt.so.*",
)
_FLAGS_COMMON = (
    r"-D\w+(=\S*)?", r"-U\w+", r"-O[0-3]", r"-l:?[\w.+-]+", r"-std=(c|gnu)(\+\+)?\d\d",
)
DEFAULT_CONSTRAINTS: dict[str, dict[str, tuple[str, ...]]] = {
    "cuda": {
        "banned_symbols": (
            r"cublas", r"cudnn", r"cutlass", r"\bcute::", r"cusparse", r"cufft", r"curand",
            r"\bat::", r"\bc10::", r"\btorch\b",
        ),
        "banned_includes": (
            r"cublas", r"cudnn", r"cutlass", r"(^|/)cute/", r"cusparse", r"cufft", r"(^|/)torch/",
            r"(^|/)ATen/", r"(^|/)c10/",
        ),
        "banned_source": _SOURCE_PATTERNS,
        "allowed_libraries": _LIBS_COMMON,
        "allowed_flags": _FLAGS_COMMON + (
            r"--?use_fast_math", r"--?maxrregcount=\d+", r"-Xptxas=[-\w,=]+", r"-lineinfo",
            r"--?ftz=(true|false)", r"--?prec-div=(true|false)", r"--?prec-sqrt=(true|false)",
            r"--?fmad=(true|false)", r"--?extra-device-vectorization", r"--?restrict",
            r"--?expt-relaxed-constexpr", r"--?expt-extended-lambda",
        ),
    },
    "cpu": {
        "banned_symbols": (
            r"cblas_", r"\b[sdcz]gemm_?\b", r"\b[sdcz]gemv_?\b", r"openblas", r"\bmkl_",
            r"\bbli_", r"\bdlopen\b", r"\bdlsym\b", r"\bdlmopen\b", r"\bsystem\b", r"\bpopen\b",
            r"\bfork\b", r"\bexecv",
        ),
        "banned_includes": (r"cblas", r"\bmkl", r"openblas", r"lapack", r"(^|/)Eigen/", r"\bblis\b", r"dlfcn"),
        "banned_source": _SOURCE_PATTERNS,
        "allowed_libraries": _LIBS_COMMON + ("libgomp.so.*", "libmvec.so.*"),
        "allowed_flags": _FLAGS_COMMON + (
            r"-Ofast", r"-ffast-math", r"-funroll(-all)?-loops", r"-fno-math-errno",
            r"-ffp-contract=(fast|on|off)", r"-fopenmp-simd", r"-fno-trapping-math",
            r"-fassociative-math", r"-freciprocal-math", r"-fno-signed-zeros", r"-ftree-vectorize",
            r"-fprefetch-loop-arrays", r"-fomit-frame-pointer", r"-march=[\w-]+", r"-mtune=[\w-]+",
            r"-m(no-)?(avx[\w-]*|fma|f16c|bmi2?|sse[\w.]*|prefer-vector-width=\d+)",
        ),
    },
}


@dataclass(frozen=True)
class Tolerance:
    """Error bounds against the reference: err <= tol and err <= seed_factor*seed_err + seed_slack*tol."""

    rel_l2: float | None = None
    max_abs: float | None = None
    seed_factor: float = 4.0
    seed_slack: float = 0.1

    def bounds(self) -> dict[str, float]:
        return {k: v for k, v in (("rel_l2", self.rel_l2), ("max_abs", self.max_abs)) if v is not None}


@dataclass(frozen=True)
class Scenario:
    name: str
    params: dict[str, Any]
    tolerance: Tolerance


@dataclass(frozen=True)
class Constraints:
    banned_symbols: tuple[str, ...]
    banned_includes: tuple[str, ...]
    banned_source: tuple[str, ...]
    allowed_libraries: tuple[str, ...]
    allowed_flags: tuple[str, ...]


@dataclass(frozen=True)
class Goal:
    all_correct: bool = True
    min_geomean: float = 1.0
    min_scenario_ratio: float | None = None


@dataclass(frozen=True)
class TimingSpec:
    budget_s: float = 2.0
    target_ci: float = 0.01
    min_pairs: int = 10
    max_pairs: int = 2000
    buffer_sets: int = 3
    call_timeout_s: float = 10.0


@dataclass(frozen=True)
class Reference:
    """numpy (harness.reference in float64) or a kernel source with its own entry (fp32 outputs)."""

    kind: str  # "numpy" | "kernel"
    source: Path | None = None
    entry: str | None = None


@dataclass
class Task:
    name: str
    dir: Path
    backend: str
    arch: str
    header: Path
    struct: str
    entry: str
    seed: Path
    reference: Reference
    params: tuple[ParamField, ...]
    scenarios: tuple[Scenario, ...]
    quick: tuple[str, ...]
    roofline: str
    constraints: Constraints
    goal: Goal
    timing: TimingSpec
    description: str = ""
    yaml_path: Path = field(default=Path())

    @cached_property
    def harness(self) -> ModuleType:
        digest = hashlib.sha1(str(self.dir).encode()).hexdigest()[:10]
        safe = re.sub(r"\W", "_", self.name)
        return load_harness(self.dir / "harness.py", f"kernelseek_task_{safe}_{digest}")

    def buffers(self, kind: str) -> list[ParamField]:
        return [f for f in self.params if f.kind == kind]

    def element_types(self, params: dict[str, Any]) -> dict[str, ElementType]:
        """The element type of every buffer for one scenario (`$p` dtypes read parameter p)."""
        return {f.name: ELEMENT_TYPES[params[f.dtype[1:]] if f.dtype.startswith("$") else f.dtype]
                for f in self.params if f.kind != "scalar"}

    def select(self, quick: bool = False, only: str | None = None) -> list[Scenario]:
        """The scenarios an evaluation runs: all, or the quick subset, filtered by a regex."""
        chosen = list(self.scenarios)
        if quick:
            names = set(self.quick)
            chosen = [s for s in chosen if s.name in names]
        if only:
            try:
                pattern = re.compile(only)
            except re.error as exc:
                raise TaskError(f"--only {only!r}: bad regular expression: {exc}") from None
            chosen = [s for s in chosen if pattern.search(s.name)]
        if not chosen:
            what = ("quick " if quick else "") + (f"matching {only!r}" if only else "")
            raise TaskError(f"task {self.name}: no scenario {what}".rstrip())
        return chosen


# Where a bare task name is looked up when the caller gives no tasks folder: the kernels/ folder
# beside this package (a checkout and an installed wheel lay it out alike), found as a path and
# never imported (the evaluator imports nothing above it). The application passes its own
# (kernels.TASKS_DIR, tested equal); this default serves `python -m evaluator` on a GPU node and
# direct calls; the tasks here are the shipped ones, which must carry a PINNED list.
SHIPPED_TASKS_DIR = Path(__file__).resolve().parent.parent / "kernels"


def find_task_dir(name_or_path: str | Path, tasks_dir: Path | None = None) -> Path:
    """A task folder from a name under `tasks_dir` (default SHIPPED_TASKS_DIR) or a path to a
    folder (or its task.yaml)."""
    candidate = Path(name_or_path)
    if candidate.name == "task.yaml" and candidate.is_file():
        return candidate.parent.resolve()
    if candidate.is_dir() and (candidate / "task.yaml").is_file():
        return candidate.resolve()
    tasks_dir = Path(tasks_dir) if tasks_dir is not None else SHIPPED_TASKS_DIR
    by_name = tasks_dir / str(name_or_path)
    if "/" not in str(name_or_path) and (by_name / "task.yaml").is_file():
        return by_name.resolve()
    known = sorted(p.parent.name for p in tasks_dir.glob("*/task.yaml"))
    raise TaskError(
        f"unknown task {str(name_or_path)!r}: not a folder with a task.yaml, nor one of: "
        + (", ".join(known) or "(none)")
    )


def load_task(name_or_path: str | Path | Task, tasks_dir: Path | None = None) -> Task:
    """Load and validate a task by name (a folder under `tasks_dir`, default SHIPPED_TASKS_DIR)
    or folder path. Raises TaskError."""
    if isinstance(name_or_path, Task):
        return name_or_path
    folder = find_task_dir(name_or_path, tasks_dir)
    path = folder / "task.yaml"
    try:
        doc = load_yaml(path)
    except YamlSyntaxError as exc:
        raise TaskError(f"{path}:{exc.line}: {exc}") from None
    return _Parser(path, folder).task(doc)


class _Parser:
    """Walks a loaded task.yaml; every error names file:line: field."""

    def __init__(self, path: Path, folder: Path) -> None:
        self.path, self.folder = path, folder

    def fail(self, line: int, where: str, message: str) -> TaskError:
        return TaskError(f"{self.path}:{line}: {where}: {message}")

    def mapping(self, value: Any, line: int, where: str, allowed: tuple[str, ...]) -> SpanDict:
        if not isinstance(value, SpanDict):
            raise self.fail(line, where, f"expected a mapping, got {_kind(value)}")
        for key in value:
            if key not in allowed:
                raise self.fail(value.line_of(key), f"{where}.{key}" if where else str(key),
                                f"unknown field (expected one of: {', '.join(allowed)})")
        return value

    def need(self, doc: SpanDict, key: str, where: str) -> Any:
        if key not in doc:
            raise self.fail(doc.line, _join(where, key), "missing (required)")
        return doc[key]

    def string(self, doc: SpanDict, key: str, where: str, default: str | None = None,
               pattern: re.Pattern[str] | None = None, choices: tuple[str, ...] = ()) -> str:
        if key not in doc and default is not None:
            return default
        value = self.need(doc, key, where)
        field_name, line = _join(where, key), doc.line_of(key)
        if not isinstance(value, str) or not value:
            raise self.fail(line, field_name, f"expected a non-empty string, got {_kind(value)}")
        if choices and value not in choices:
            raise self.fail(line, field_name, f"{value!r} is not one of: {', '.join(choices)}")
        if pattern and not pattern.match(value):
            raise self.fail(line, field_name, f"{value!r} is not a valid name")
        return value

    def number(self, doc: SpanDict, key: str, where: str, default: float | None,
               positive: bool = True, integer: bool = False) -> float | None:
        if key not in doc:
            return default
        value, line, name = doc[key], doc.line_of(key), _join(where, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(line, name, f"expected a number, got {_kind(value)}")
        if integer and not isinstance(value, int):
            raise self.fail(line, name, f"expected an integer, got {value!r}")
        if positive and value <= 0:
            raise self.fail(line, name, f"must be > 0, got {value!r}")
        return value

    def file(self, doc: SpanDict, key: str, where: str) -> Path:
        name = self.string(doc, key, where)
        path = (self.folder / name).resolve()
        if not path.is_file():
            raise self.fail(doc.line_of(key), _join(where, key), f"file not found: {path}")
        return path

    def task(self, doc: Any) -> Task:
        doc = self.mapping(doc, 1, "", (
            "name", "description", "backend", "arch", "header", "struct", "entry", "seed",
            "reference", "params", "scenarios", "quick", "tolerances", "roofline", "constraints",
            "goal", "timing",
        ))
        backend = self.string(doc, "backend", "", choices=BACKENDS)
        arch = self.string(doc, "arch", "", default="native")
        if backend == "cuda" and not re.match(r"^sm_\d+a?$", arch):
            raise self.fail(doc.line_of("arch"), "arch", f"expected sm_NN or sm_NNa for cuda, got {arch!r}")
        tolerance = self.tolerance(self.need(doc, "tolerances", ""), doc.line_of("tolerances"),
                                   "tolerances", None)
        params = self.params(self.need(doc, "params", ""), doc.line_of("params"))
        scenarios = self.scenarios(self.need(doc, "scenarios", ""), doc.line_of("scenarios"), tolerance)
        self.check_dtype_refs(params, scenarios, doc["params"])
        task = Task(
            name=self.string(doc, "name", "", default=self.folder.name, pattern=NAME_RE),
            dir=self.folder,
            backend=backend,
            arch=arch,
            header=self.file(doc, "header", ""),
            struct=self.string(doc, "struct", "", pattern=C_IDENT_RE),
            entry=self.string(doc, "entry", "", pattern=C_IDENT_RE),
            seed=self.file(doc, "seed", ""),
            reference=self.reference(doc, backend),
            params=params,
            scenarios=scenarios,
            quick=self.quick(doc, scenarios),
            roofline=self.string(doc, "roofline", "", default="memory", choices=ROOFLINES),
            constraints=self.constraints(doc.get("constraints", SpanDict()), doc.line_of("constraints"), backend),
            goal=self.goal(self.need(doc, "goal", ""), doc.line_of("goal")),
            timing=self.timing(doc.get("timing", SpanDict()), doc.line_of("timing")),
            description=str(doc.get("description", "")),
            yaml_path=self.path,
        )
        return task

    def reference(self, doc: SpanDict, backend: str) -> Reference:
        value = doc.get("reference", "numpy")
        line = doc.line_of("reference")
        if value == "numpy":
            if backend == "cuda":
                raise self.fail(line, "reference", "a cuda task needs a reference kernel: {source, entry}")
            return Reference("numpy")
        ref = self.mapping(value, line, "reference", ("source", "entry"))
        if backend == "cpu":
            raise self.fail(line, "reference", "cpu tasks use 'numpy' (harness.reference)")
        return Reference("kernel", self.file(ref, "source", "reference"),
                         self.string(ref, "entry", "reference", pattern=C_IDENT_RE))

    def params(self, value: Any, line: int) -> tuple[ParamField, ...]:
        if not isinstance(value, SpanList) or not value:
            raise self.fail(line, "params", f"expected a non-empty list, got {_kind(value)}")
        fields: list[ParamField] = []
        for i, item in enumerate(value):
            where = f"params[{i}]"
            item = self.mapping(item, value.line_of(i), where, ("name", "in", "out", "scalar", "refresh"))
            name = self.string(item, "name", where, pattern=C_IDENT_RE)
            kinds = [k for k in ("in", "out", "scalar") if k in item]
            if len(kinds) != 1:
                raise self.fail(item.line, where, "needs exactly one of in:, out:, scalar:")
            kind = kinds[0]
            if kind != "scalar" and isinstance(item[kind], str) and item[kind].startswith("$"):
                dtype = self.string(item, kind, where)  # resolved per scenario (checked below)
                if not C_IDENT_RE.match(dtype[1:]):
                    raise self.fail(item.line_of(kind), f"{where}.{kind}", f"bad parameter reference {dtype!r}")
            else:
                choices = SCALAR_TYPES if kind == "scalar" else tuple(ELEMENT_TYPES)
                dtype = self.string(item, kind, where, choices=choices)
            if any(f.name == name for f in fields):
                raise self.fail(item.line_of("name"), f"{where}.name", f"duplicate field {name!r}")
            refresh = item.get("refresh", True)
            if "refresh" in item and (kind != "in" or not isinstance(refresh, bool)):
                raise self.fail(item.line_of("refresh"), f"{where}.refresh",
                                "refresh: true/false is for in: buffers only")
            fields.append(ParamField(name, kind, dtype, refresh))
        if not any(f.kind == "out" for f in fields):
            raise self.fail(line, "params", "needs at least one out: buffer")
        return tuple(fields)

    def check_dtype_refs(self, params: tuple[ParamField, ...], scenarios: tuple[Scenario, ...],
                         items: SpanList) -> None:
        """A buffer whose dtype is `$p` needs scenario parameter p, naming an element type, everywhere."""
        for i, f in enumerate(params):
            if not f.dtype.startswith("$"):
                continue
            ref = f.dtype[1:]
            for sc in scenarios:
                if sc.params.get(ref) not in ELEMENT_TYPES:
                    raise self.fail(items.line_of(i), f"params[{i}].{f.kind}",
                                    f"{f.dtype}: scenario {sc.name} has {ref}={sc.params.get(ref)!r}, "
                                    f"expected one of: {', '.join(ELEMENT_TYPES)}")

    def tolerance(self, value: Any, line: int, where: str, base: Tolerance | None) -> Tolerance:
        doc = self.mapping(value, line, where, ("rel_l2", "max_abs", "seed_factor", "seed_slack"))
        base = base or Tolerance()
        tol = Tolerance(
            rel_l2=self.number(doc, "rel_l2", where, base.rel_l2),
            max_abs=self.number(doc, "max_abs", where, base.max_abs),
            seed_factor=self.number(doc, "seed_factor", where, base.seed_factor),
            seed_slack=self.number(doc, "seed_slack", where, base.seed_slack, positive=False),
        )
        if not tol.bounds():
            raise self.fail(doc.line, where, "needs rel_l2 or max_abs")
        return tol

    def scenarios(self, value: Any, line: int, tolerance: Tolerance) -> tuple[Scenario, ...]:
        if not isinstance(value, SpanList) or not value:
            raise self.fail(line, "scenarios", f"expected a non-empty list, got {_kind(value)}")
        out: list[Scenario] = []
        seen: dict[str, int] = {}
        for i, item in enumerate(value):
            where = f"scenarios[{i}]"
            if not isinstance(item, SpanDict):
                raise self.fail(value.line_of(i), where, f"expected a mapping, got {_kind(item)}")
            if "grid" in item:
                expanded = self.grid(item, where, tolerance)
            else:
                expanded = [self.single(item, where, tolerance)]
            for scenario, at in expanded:
                if scenario.name in seen:
                    raise self.fail(at, where, f"duplicate scenario name {scenario.name!r} "
                                               f"(first at line {seen[scenario.name]})")
                seen[scenario.name] = at
                out.append(scenario)
        return tuple(out)

    def _values(self, doc: SpanDict, where: str, skip: tuple[str, ...]) -> dict[str, Any]:
        values = {}
        for key, v in doc.items():
            if key in skip:
                continue
            if not isinstance(key, str) or not C_IDENT_RE.match(key):
                raise self.fail(doc.line_of(key), where, f"bad parameter name {key!r}")
            if not isinstance(v, (int, float, str, bool)):
                raise self.fail(doc.line_of(key), _join(where, key),
                                f"expected a number, string or boolean, got {_kind(v)}")
            values[key] = v
        return values

    def single(self, item: SpanDict, where: str, tolerance: Tolerance) -> tuple[Scenario, int]:
        name = self.string(item, "name", where, pattern=NAME_RE)
        if "tolerances" in item:
            tolerance = self.tolerance(item["tolerances"], item.line_of("tolerances"),
                                       f"{where}.tolerances", tolerance)
        return Scenario(name, self._values(item, where, ("name", "tolerances")), tolerance), item.line

    def grid(self, item: SpanDict, where: str, tolerance: Tolerance) -> list[tuple[Scenario, int]]:
        block = self.mapping(item, item.line, where, ("grid", "name", "fixed", "exclude", "tolerances"))
        axes_doc = block["grid"]
        gwhere = f"{where}.grid"
        if not isinstance(axes_doc, SpanDict) or not axes_doc:
            raise self.fail(block.line_of("grid"), gwhere, f"expected a mapping of axes, got {_kind(axes_doc)}")
        axes: dict[str, list[Any]] = {}
        for key, values in axes_doc.items():
            if not isinstance(values, SpanList) or not values:
                raise self.fail(axes_doc.line_of(key), f"{gwhere}.{key}",
                                f"expected a non-empty list, got {_kind(values)}")
            for v in values:
                if not isinstance(v, (int, float, str, bool)):
                    raise self.fail(axes_doc.line_of(key), f"{gwhere}.{key}",
                                    f"expected numbers, strings or booleans, got {_kind(v)}")
            axes[key] = list(values)
        fixed = {}
        if "fixed" in block:
            fdoc = self.mapping(block["fixed"], block.line_of("fixed"), f"{where}.fixed",
                                tuple(block["fixed"]) if isinstance(block["fixed"], SpanDict) else ())
            fixed = self._values(fdoc, f"{where}.fixed", ())
        excludes: list[dict[str, Any]] = []
        if "exclude" in block:
            ex = block["exclude"]
            if not isinstance(ex, SpanList):
                raise self.fail(block.line_of("exclude"), f"{where}.exclude", f"expected a list, got {_kind(ex)}")
            for j, e in enumerate(ex):
                if not isinstance(e, SpanDict):
                    raise self.fail(ex.line_of(j), f"{where}.exclude[{j}]", f"expected a mapping, got {_kind(e)}")
                excludes.append(dict(e))
        if "tolerances" in block:
            tolerance = self.tolerance(block["tolerances"], block.line_of("tolerances"),
                                       f"{where}.tolerances", tolerance)
        template = block.get("name")
        if template is not None and not isinstance(template, str):
            raise self.fail(block.line_of("name"), f"{where}.name", f"expected a string, got {_kind(template)}")
        out = []
        for combo in itertools.product(*axes.values()):
            params = dict(zip(axes, combo)) | fixed
            if any(all(params.get(k) == v for k, v in e.items()) for e in excludes):
                continue
            if template:
                try:
                    name = template.format(**params)
                except (KeyError, IndexError, ValueError) as exc:
                    raise self.fail(block.line_of("name"), f"{where}.name", f"cannot format {template!r}: {exc}") from None
            else:
                name = "_".join(f"{k}{v}" for k, v in zip(axes, combo))
            if not NAME_RE.match(name):
                raise self.fail(block.line_of("name"), f"{where}.name", f"expands to a bad name {name!r}")
            out.append((Scenario(name, params, tolerance), block.line))
        if not out:
            raise self.fail(block.line, where, "the grid expands to no scenario")
        return out

    def quick(self, doc: SpanDict, scenarios: tuple[Scenario, ...]) -> tuple[str, ...]:
        if "quick" not in doc:
            return tuple(s.name for s in scenarios[:3])
        value, line = doc["quick"], doc.line_of("quick")
        if not isinstance(value, SpanList) or not value:
            raise self.fail(line, "quick", f"expected a non-empty list of names or patterns, got {_kind(value)}")
        names: list[str] = []
        for i, pattern in enumerate(value):
            if not isinstance(pattern, str):
                raise self.fail(value.line_of(i), f"quick[{i}]", f"expected a string, got {_kind(pattern)}")
            hits = [s.name for s in scenarios if fnmatch.fnmatchcase(s.name, pattern)]
            if not hits:
                raise self.fail(value.line_of(i), f"quick[{i}]", f"{pattern!r} matches no scenario")
            names.extend(h for h in hits if h not in names)
        return tuple(names)

    def constraints(self, value: Any, line: int, backend: str) -> Constraints:
        keys = tuple(DEFAULT_CONSTRAINTS[backend])
        doc = self.mapping(value, line, "constraints", keys)
        got: dict[str, tuple[str, ...]] = {}
        for key in keys:
            if key not in doc:
                got[key] = DEFAULT_CONSTRAINTS[backend][key]
                continue
            items = doc[key]
            if not isinstance(items, SpanList) or not all(isinstance(x, str) for x in items):
                raise self.fail(doc.line_of(key), f"constraints.{key}", "expected a list of strings")
            if key != "allowed_libraries":
                for j, rx in enumerate(items):
                    try:
                        re.compile(rx)
                    except re.error as exc:
                        raise self.fail(items.line_of(j), f"constraints.{key}[{j}]",
                                        f"bad regular expression {rx!r}: {exc}") from None
            got[key] = tuple(items)
        return Constraints(**got)

    def goal(self, value: Any, line: int) -> Goal:
        doc = self.mapping(value, line, "goal", ("all_correct", "min_geomean", "min_scenario_ratio"))
        all_correct = doc.get("all_correct", True)
        if not isinstance(all_correct, bool):
            raise self.fail(doc.line_of("all_correct"), "goal.all_correct", f"expected true or false, got {_kind(all_correct)}")
        return Goal(
            all_correct=all_correct,
            min_geomean=float(self.number(doc, "min_geomean", "goal", 1.0)),
            min_scenario_ratio=self.number(doc, "min_scenario_ratio", "goal", None),
        )

    def timing(self, value: Any, line: int) -> TimingSpec:
        doc = self.mapping(value, line, "timing", (
            "budget_s", "target_ci", "min_pairs", "max_pairs", "buffer_sets", "call_timeout_s"))
        d = TimingSpec()
        spec = TimingSpec(
            budget_s=float(self.number(doc, "budget_s", "timing", d.budget_s)),
            target_ci=float(self.number(doc, "target_ci", "timing", d.target_ci)),
            min_pairs=int(self.number(doc, "min_pairs", "timing", d.min_pairs, integer=True)),
            max_pairs=int(self.number(doc, "max_pairs", "timing", d.max_pairs, integer=True)),
            buffer_sets=int(self.number(doc, "buffer_sets", "timing", d.buffer_sets, integer=True)),
            call_timeout_s=float(self.number(doc, "call_timeout_s", "timing", d.call_timeout_s)),
        )
        if spec.max_pairs < spec.min_pairs:
            raise self.fail(doc.line_of("max_pairs"), "timing.max_pairs", "must be >= min_pairs")
        return spec


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"
