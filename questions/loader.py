"""The question bank: its YAML format, the loader and the validator.

A bank file is a YAML mapping::

    set: core                  # optional; the file's stem otherwise
    defaults:                  # optional; fields every item of the file gets unless it sets them
      arch: [gpu]
    items:
      - id: win-noise
        text: "Is that win noise? Run it again and show me the spread."
        triggers: [suspicious_win]
        layers: [measurement]

The validator reads the file through YAML's composer so that every problem names the file, the
line and the field (and the item's id when it has one); it reports every problem it finds, not
only the first. `load_bank` raises `BankError` when any is found; `read_bank` returns the bank
with the problems so a caller (``kernelseek bank validate``) can list them all.
"""
from __future__ import annotations

import difflib
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from sessions.events import DECISION_KINDS
from sessions.yamlfile import YamlFileError, read_yaml

BANK_DIR = Path(__file__).resolve().parent / "bank"

#: Where in the system a question sends the agent.
LAYERS: dict[str, str] = {
    "algorithm": "the formulation: the work done, the bytes and FLOPs it needs, the order of loops",
    "memory_hierarchy": "DRAM, L2, shared memory, registers: where data lives and how it moves",
    "instruction_mix": "what the compiled code issues: math versus overhead, precisions, SASS",
    "scheduling": "occupancy, waves, block and warp roles, pipelining, load balance",
    "launch": "the host side: launches, streams, synchronisation, allocation, overhead",
    "measurement": "how the numbers are taken: noise, clocks, caches, peak, profilers",
    "correctness": "whether the output is right, on every input, for the right reason",
    "toolchain": "the compiler, its flags and targets, libraries, the build",
}

#: Architecture tags. `any` applies everywhere; `gpu` to every sm_*; `smNN` to that major
#: version (sm90 covers sm90a; sm100 covers sm100a, sm101, sm103); `cpu` to CPU tasks.
ARCH_TAGS: tuple[str, ...] = ("any", "gpu", "cpu", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120")

#: What an item may require of the task (the runner lists a task's capabilities).
CAPABILITIES: dict[str, str] = {
    "other_implementation": "an upstream kernel for the same operation exists to compare with",
    "profiler": "a profiler (ncu, nsys, perf) can be run on the kernel",
}

PROVENANCES: tuple[str, ...] = ("written", "mined", "trace")

#: Longer than this is not a short question.
MAX_TEXT_CHARS = 160

ITEM_FIELDS: tuple[str, ...] = ("id", "text", "triggers", "layers", "arch", "requires",
                                "provenance", "verified", "stats", "note")
REQUIRED_FIELDS: tuple[str, ...] = ("id", "text", "triggers", "layers")
DEFAULTABLE_FIELDS: tuple[str, ...] = ("arch", "requires", "provenance", "verified", "layers",
                                       "triggers")
FILE_FIELDS: tuple[str, ...] = ("set", "description", "defaults", "items")

#: Statistics a bank item may carry (the miner writes them; ranking reads `mean_gain`).
STAT_FIELDS: dict[str, str] = {
    "asked": "how many times the question was asked in the mined logs",
    "sessions": "in how many sessions",
    "mean_gain": "mean relative geomean change over the evaluations that followed (0.12 = +12%)",
    "hit_rate": "fraction of askings followed by an improvement",
    "minutes_to_gain": "median minutes from the question to the next improvement",
    "kinds": "decision-point kinds that preceded it: {kind: count}",
}

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


class BankError(Exception):
    """A bank cannot be loaded as asked. Printed as one line (or a list) by the CLI."""

    exit_code = 2

    def __init__(self, message: str, problems: list["BankProblem"] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


@dataclass(frozen=True)
class BankProblem:
    """One defect in a bank file: where it is and what is wrong."""

    file: str
    line: int  # 1-based; 0 when the file as a whole is the problem
    message: str
    field: str = ""
    item_id: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        who = f"item {self.item_id!r}: " if self.item_id else ""
        what = f"field {self.field!r}: " if self.field else ""
        return f"{where}: {who}{what}{self.message}"


@dataclass
class BankItem:
    """One question of the bank."""

    id: str
    text: str
    triggers: tuple[str, ...]
    layers: tuple[str, ...]
    arch: tuple[str, ...] = ("any",)
    requires: tuple[str, ...] = ()
    provenance: str = "written"
    verified: bool = False
    stats: dict = field(default_factory=dict)
    note: str = ""
    set: str = ""
    source: str = ""  # the file it came from
    line: int = 0  # the line of its `id`
    text_line: int = field(default=0, repr=False, compare=False)  # the line of its `text`

    def applies_to(self, arch: str | None) -> bool:
        """Whether the item fits a task on `arch` (None: unknown, assumed some GPU)."""
        return arch_matches(self.arch, arch)

    def requirements_met(self, capabilities: Iterable[str]) -> bool:
        have = set(capabilities)
        return all(r in have for r in self.requires)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("triggers", "layers", "arch", "requires"):
            d[k] = list(d[k])
        return d


def arch_major(tag: str | None) -> int | None:
    """The compute-capability major of an `smNN[a|f]` tag (sm90a -> 9, sm100 -> 10)."""
    if not tag:
        return None
    m = re.fullmatch(r"sm_?(\d+)[a-z]?", tag.strip().lower())
    if not m:
        return None
    digits = m.group(1)
    return int(digits[:-1]) if len(digits) >= 2 else int(digits)


def normalize_arch(arch: str | None) -> str | None:
    """`sm_90a` -> `sm90a`, `CPU` -> `cpu`; None and empty stay None."""
    if not arch:
        return None
    return str(arch).strip().lower().replace("sm_", "sm")


def arch_matches(item_arch: Iterable[str], arch: str | None) -> bool:
    arch = normalize_arch(arch)
    tags = tuple(item_arch) or ("any",)
    if "any" in tags:
        return True
    if arch == "cpu":
        return "cpu" in tags
    if arch is None:  # unknown: assume a GPU of unknown generation
        return "gpu" in tags
    major = arch_major(arch)
    if major is None:  # an architecture we do not know: only the general items
        return False
    if "gpu" in tags:
        return True
    return any(arch_major(t) == major for t in tags if t.startswith("sm"))


def arch_specificity(item_arch: Iterable[str], arch: str | None) -> int:
    """0 for an item written for this very architecture, 1 for `gpu`/`cpu`, 2 for `any`."""
    tags = tuple(item_arch) or ("any",)
    arch = normalize_arch(arch)
    major = arch_major(arch)
    if major is not None and any(arch_major(t) == major for t in tags if t.startswith("sm")):
        return 0
    if "any" in tags:
        return 2
    return 1


class Bank:
    """The loaded questions, in file order, addressable by id."""

    def __init__(self, items: Iterable[BankItem] = (), files: Iterable[str] = ()) -> None:
        self.items: list[BankItem] = list(items)
        self.files: list[str] = list(files)
        self.by_id: dict[str, BankItem] = {}
        self.index: dict[str, int] = {}
        for i, it in enumerate(self.items):
            self.by_id.setdefault(it.id, it)
            self.index.setdefault(it.id, i)

    def __iter__(self) -> Iterator[BankItem]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self.by_id

    def get(self, item_id: str) -> BankItem | None:
        return self.by_id.get(item_id)

    def for_trigger(self, kind: str) -> list[BankItem]:
        return [it for it in self.items if kind in it.triggers]

    def filter(self, *, trigger: str | None = None, layer: str | None = None,
               arch: str | None = None, set: str | None = None) -> list[BankItem]:
        out = []
        for it in self.items:
            if trigger and trigger not in it.triggers:
                continue
            if layer and layer not in it.layers:
                continue
            if arch and not it.applies_to(arch):
                continue
            if set and it.set != set:
                continue
            out.append(it)
        return out

    def counts(self) -> dict[str, dict[str, int]]:
        """How many items per set, trigger, layer, arch tag and provenance."""
        out: dict[str, dict[str, int]] = {"set": {}, "trigger": {k: 0 for k in DECISION_KINDS},
                                          "layer": {k: 0 for k in LAYERS}, "arch": {},
                                          "provenance": {}}
        for it in self.items:
            out["set"][it.set] = out["set"].get(it.set, 0) + 1
            for k in it.triggers:
                out["trigger"][k] = out["trigger"].get(k, 0) + 1
            for k in it.layers:
                out["layer"][k] = out["layer"].get(k, 0) + 1
            for k in it.arch:
                out["arch"][k] = out["arch"].get(k, 0) + 1
            out["provenance"][it.provenance] = out["provenance"].get(it.provenance, 0) + 1
        return out


def bundled_bank_files() -> list[Path]:
    return sorted(BANK_DIR.glob("*.yaml"))


def load_bank(paths: Iterable[str | os.PathLike] | None = None) -> Bank:
    """Load bank files (default: the bundled `questions/bank/*.yaml`); raise on any defect."""
    bank, problems = read_bank(paths)
    if problems:
        shown = "; ".join(str(p) for p in problems[:3])
        more = f" (and {len(problems) - 3} more; run `kernelseek bank validate`)" if len(problems) > 3 else ""
        raise BankError(f"{len(problems)} problem(s) in the bank: {shown}{more}", problems)
    return bank


def read_bank(paths: Iterable[str | os.PathLike] | None = None) -> tuple[Bank, list[BankProblem]]:
    """Load what can be loaded and report every problem (duplicate ids across files too)."""
    files = [Path(p) for p in paths] if paths is not None else bundled_bank_files()
    expanded: list[Path] = []
    problems: list[BankProblem] = []
    for p in files:
        if p.is_dir():
            found = sorted(p.glob("*.yaml")) + sorted(p.glob("*.yml"))
            if not found:
                problems.append(BankProblem(str(p), 0, "no *.yaml bank files in this folder"))
            expanded.extend(found)
        else:
            expanded.append(p)
    if not expanded and not problems:
        problems.append(BankProblem(str(BANK_DIR), 0, "no bank files given"))
    items: list[BankItem] = []
    seen: dict[str, BankItem] = {}
    seen_text: dict[str, BankItem] = {}
    for path in expanded:
        file_items, file_problems = parse_bank_file(path)
        problems.extend(file_problems)
        for it in file_items:
            first = seen.get(it.id)
            if first is not None:
                problems.append(BankProblem(it.source, it.line, f"duplicate id (first at {first.source}:{first.line})",
                                            "id", it.id))
                continue
            key = _text_key(it.text)
            twin = seen_text.get(key)
            if twin is not None:
                problems.append(BankProblem(it.source, it.text_line or it.line,
                                            f"same text as item {twin.id!r} ({twin.source}:{twin.line})",
                                            "text", it.id))
            seen[it.id] = it
            seen_text.setdefault(key, it)
            items.append(it)
    order = {str(p): i for i, p in enumerate(expanded)}
    problems.sort(key=lambda p: (order.get(p.file, -1), p.line))
    return Bank(items, [str(p) for p in expanded]), problems


def _text_key(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def parse_bank_file(path: str | os.PathLike) -> tuple[list[BankItem], list[BankProblem]]:
    """Parse one bank file: its items, and every problem found in it (never raises)."""
    path = Path(path)
    name = str(path)
    try:
        root = read_yaml(path, nodes=True)
    except YamlFileError as exc:
        return [], [BankProblem(name, exc.line, "no such file" if exc.missing else exc.reason)]
    return _FileParser(name, path.stem).parse(root)


def _line(node) -> int:
    return node.start_mark.line + 1


_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_NULL = "tag:yaml.org,2002:null"
_STR = "tag:yaml.org,2002:str"


def _scalar(node):
    """A scalar node's value, resolved the way safe_load would (enough for a bank)."""
    import yaml

    v = node.value
    if node.tag == _NULL:
        return None
    if node.tag == _BOOL:
        return v.lower() in ("yes", "true", "on", "y")
    if node.tag == _INT:
        try:
            return int(v.replace("_", ""), 0)
        except ValueError:
            return yaml.safe_load(v)
    if node.tag == _FLOAT:
        s = v.lower().replace("_", "")
        if s in (".nan",):
            return math.nan
        if s in (".inf", "+.inf"):
            return math.inf
        if s == "-.inf":
            return -math.inf
        return float(s)
    return v


def _plain(node):
    """A node as plain Python data (for stats and defaults)."""
    import yaml

    if isinstance(node, yaml.ScalarNode):
        return _scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return [_plain(n) for n in node.value]
    return {str(_plain(k)): _plain(v) for k, v in node.value}


class _FileParser:
    def __init__(self, name: str, stem: str) -> None:
        self.name = name
        self.stem = stem
        self.problems: list[BankProblem] = []
        self.ids: dict[str, int] = {}  # id -> line of its first item

    def problem(self, node_or_line, message: str, field: str = "", item_id: str = "") -> None:
        line = node_or_line if isinstance(node_or_line, int) else _line(node_or_line)
        self.problems.append(BankProblem(self.name, line, message, field, item_id))

    def mapping(self, node, what: str, item_id: str = "") -> dict[str, tuple]:
        """A mapping node as {key: (key_node, value_node)}; duplicate keys are problems."""
        out: dict[str, tuple] = {}
        for k, v in node.value:
            key = _plain(k)
            if not isinstance(key, str):
                self.problem(k, f"{what} keys are names, not {type(key).__name__}", item_id=item_id)
                continue
            if key in out:
                self.problem(k, f"given twice (first at line {_line(out[key][0])})", key, item_id)
                continue
            out[key] = (k, v)
        return out

    def parse(self, root) -> tuple[list[BankItem], list[BankProblem]]:
        import yaml

        if root is None:
            self.problem(1, "empty file: a bank file is a mapping with `items`")
            return [], self.problems
        set_name = self.stem
        defaults: dict = {}
        if isinstance(root, yaml.SequenceNode):
            item_nodes = root.value
        elif isinstance(root, yaml.MappingNode):
            top = self.mapping(root, "top-level")
            for key, (knode, _v) in top.items():
                if key not in FILE_FIELDS:
                    self.problem(knode, f"unknown top-level field{_did_you_mean(key, FILE_FIELDS)}", key)
            if "set" in top:
                vnode = top["set"][1]
                v = _plain(vnode)
                if isinstance(v, str) and v.strip():
                    set_name = v.strip()
                else:
                    self.problem(vnode, "a set name is a non-empty string", "set")
            if "defaults" in top:
                defaults = self.parse_defaults(top["defaults"][1])
            if "items" not in top:
                self.problem(root, "no `items` list")
                return [], self.problems
            items_node = top["items"][1]
            if not isinstance(items_node, yaml.SequenceNode):
                self.problem(items_node, "a list of items is expected", "items")
                return [], self.problems
            item_nodes = items_node.value
        else:
            self.problem(root, "a bank file is a mapping with `items` (or a list of items)")
            return [], self.problems
        items = []
        for node in item_nodes:
            item = self.parse_item(node, defaults, set_name)
            if item is not None:
                items.append(item)
        return items, self.problems

    def parse_defaults(self, node) -> dict:
        import yaml

        if not isinstance(node, yaml.MappingNode):
            self.problem(node, "defaults is a mapping of item fields", "defaults")
            return {}
        out = {}
        for key, (knode, vnode) in self.mapping(node, "defaults").items():
            if key not in DEFAULTABLE_FIELDS:
                self.problem(knode, f"cannot be given a default (only {', '.join(DEFAULTABLE_FIELDS)})",
                             f"defaults.{key}")
                continue
            value = self.check_field(key, vnode, "")
            if value is not _BAD:
                out[key] = value
        return out

    def parse_item(self, node, defaults: dict, set_name: str) -> BankItem | None:
        import yaml

        if not isinstance(node, yaml.MappingNode):
            self.problem(node, "an item is a mapping (id, text, triggers, layers, ...)")
            return None
        item_id = ""
        for k, v in node.value:  # the id first, so that every problem can name the item
            if isinstance(k, yaml.ScalarNode) and k.value == "id" and isinstance(v, yaml.ScalarNode):
                item_id = str(v.value)
                break
        fields = self.mapping(node, "item", item_id)
        duplicate = False
        if "id" in fields and item_id:
            first = self.ids.get(item_id)
            if first is not None:  # said even when the item has other faults
                self.problem(fields["id"][0], f"duplicate id (first at line {first})", "id", item_id)
                duplicate = True
            else:
                self.ids[item_id] = _line(fields["id"][0])
        for key, (knode, _v) in fields.items():
            if key not in ITEM_FIELDS:
                self.problem(knode, f"unknown field{_did_you_mean(key, ITEM_FIELDS)}", key, item_id)
        values: dict = {}
        ok = True
        for key in ITEM_FIELDS:
            if key in fields:
                v = self.check_field(key, fields[key][1], item_id)
                if v is _BAD:
                    ok = False
                else:
                    values[key] = v
            elif key in defaults:
                values[key] = defaults[key]
            elif key in REQUIRED_FIELDS:
                self.problem(node, "missing (required: " + ", ".join(REQUIRED_FIELDS) + ")", key, item_id)
                ok = False
        if not ok or duplicate:
            return None
        line = _line(fields["id"][0]) if "id" in fields else _line(node)
        text_line = _line(fields["text"][1]) if "text" in fields else line
        return BankItem(
            id=values["id"], text=values["text"], triggers=tuple(values["triggers"]),
            layers=tuple(values["layers"]), arch=tuple(values.get("arch", ("any",))),
            requires=tuple(values.get("requires", ())), provenance=values.get("provenance", "written"),
            verified=values.get("verified", False), stats=dict(values.get("stats", {})),
            note=values.get("note", ""), set=set_name, source=self.name, line=line, text_line=text_line,
        )

    # -- fields -------------------------------------------------------------------------------

    def check_field(self, key: str, node, item_id: str):
        return getattr(self, f"_check_{key}")(node, item_id)

    def _string(self, node, key: str, item_id: str):
        import yaml

        if not isinstance(node, yaml.ScalarNode) or node.tag != _STR:
            self.problem(node, "a string is expected", key, item_id)
            return _BAD
        return node.value

    def _check_id(self, node, item_id: str):
        v = self._string(node, "id", item_id)
        if v is _BAD:
            return v
        if not _ID_RE.match(v):
            self.problem(node, "ids are lowercase letters, digits, '.', '_' and '-' (at most 64)", "id", item_id)
            return _BAD
        return v

    def _check_text(self, node, item_id: str):
        v = self._string(node, "text", item_id)
        if v is _BAD:
            return v
        v = " ".join(v.split())
        if not v:
            self.problem(node, "empty question", "text", item_id)
            return _BAD
        if len(v) > MAX_TEXT_CHARS:
            self.problem(node, f"{len(v)} characters: a question is at most {MAX_TEXT_CHARS}", "text", item_id)
            return _BAD
        return v

    def _check_note(self, node, item_id: str):
        return self._string(node, "note", item_id)

    def _names(self, node, key: str, item_id: str, known, *, allow_empty: bool, what: str, one: str):
        import yaml

        if isinstance(node, yaml.ScalarNode) and node.tag == _STR and node.value:
            entries = [node]
        elif isinstance(node, yaml.SequenceNode):
            entries = node.value
        else:
            self.problem(node, f"a list of {what} is expected", key, item_id)
            return _BAD
        out: list[str] = []
        bad = False
        for n in entries:
            v = _plain(n) if isinstance(n, yaml.ScalarNode) else None
            if not isinstance(v, str):
                self.problem(n, f"{what} are names", key, item_id)
                bad = True
                continue
            if v not in known:
                self.problem(n, f"unknown {one} {v!r}{_did_you_mean(v, known)} (known: {', '.join(known)})",
                             key, item_id)
                bad = True
                continue
            if v in out:
                self.problem(n, f"{v!r} listed twice", key, item_id)
                continue
            out.append(v)
        if bad:
            return _BAD
        if not out and not allow_empty:
            self.problem(node, f"at least one of {what} is needed", key, item_id)
            return _BAD
        return tuple(out)

    def _check_triggers(self, node, item_id: str):
        return self._names(node, "triggers", item_id, DECISION_KINDS, allow_empty=False, what="triggers",
                           one="trigger")

    def _check_layers(self, node, item_id: str):
        return self._names(node, "layers", item_id, tuple(LAYERS), allow_empty=False, what="layers", one="layer")

    def _check_arch(self, node, item_id: str):
        return self._names(node, "arch", item_id, ARCH_TAGS, allow_empty=False, what="architectures",
                           one="architecture")

    def _check_requires(self, node, item_id: str):
        return self._names(node, "requires", item_id, tuple(CAPABILITIES), allow_empty=True,
                           what="capabilities", one="capability")

    def _check_provenance(self, node, item_id: str):
        v = self._string(node, "provenance", item_id)
        if v is _BAD:
            return v
        if v not in PROVENANCES:
            self.problem(node, f"unknown provenance {v!r} (known: {', '.join(PROVENANCES)})", "provenance", item_id)
            return _BAD
        return v

    def _check_verified(self, node, item_id: str):
        import yaml

        if not isinstance(node, yaml.ScalarNode) or node.tag != _BOOL:
            self.problem(node, "true or false is expected", "verified", item_id)
            return _BAD
        return _scalar(node)

    def _check_stats(self, node, item_id: str):
        import yaml

        if not isinstance(node, yaml.MappingNode):
            self.problem(node, "a mapping of statistics is expected", "stats", item_id)
            return _BAD
        out = {}
        bad = False
        for key, (knode, vnode) in self.mapping(node, "stats", item_id).items():
            v = _plain(vnode)
            if key == "kinds":
                if not isinstance(v, dict) or not all(
                        k in DECISION_KINDS and _is_number(c) for k, c in v.items()):
                    self.problem(vnode, "kinds maps decision-point kinds to counts", "stats.kinds", item_id)
                    bad = True
                    continue
            elif key in STAT_FIELDS and not _is_number(v):
                self.problem(vnode, "a finite number is expected", f"stats.{key}", item_id)
                bad = True
                continue
            out[key] = v
        return _BAD if bad else out


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


class _Bad:
    def __repr__(self) -> str:
        return "<bad>"


_BAD = _Bad()


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
