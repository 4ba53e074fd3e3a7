"""Writing mined clusters as bank items, and folding them into an existing bank file.

Every candidate is an item of the bank format (docs/questions.md): `provenance: mined`,
`verified: false`, `stats` from the askings, `triggers` from the decision-point kinds that
preceded them (most frequent first; guessed from the words when none was open), `layers`
guessed from keywords, `arch` narrowed only when the words make it evident (wgmma, TMA, Hopper
-> sm90; tcgen05, Blackwell -> sm100; warps, SASS, shared memory -> gpu; AVX, NEON -> cpu).

`merge_bank_text` edits the existing file's text rather than re-dumping it, so its comments,
order and layout stay: a matched item gets its `stats` replaced (the logs mined are the record;
mining them again gives the same numbers), new candidates are appended to `items`.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from typing import Mapping

from sessions.events import DECISION_KINDS

#: Layer -> keywords (lower case; matched as word starts) that send a question there.
LAYER_WORDS: dict[str, tuple[str, ...]] = {
    "algorithm": ("algorithm", "formulation", "flop", "work done", "minimum", "complexity", "loop order", "reformulat",
                  "recompute", "redundant", "fusion", "fuse", "math", "online softmax", "order of", "approach"),
    "memory_hierarchy": ("dram", "hbm", "l2", "l1", "cache", "smem", "shared mem", "register", "spill", "coalesc",
                         "bank conflict", "bytes", "byte", "load", "store", "bandwidth", "memory", "tma",
                         "working set", "reuse", "traffic", "gb/s", "tb/s"),
    "instruction_mix": ("sass", "ptx", "instruction", "tensor core", "wgmma", "mma", "fma", "precision", "fp16",
                        "bf16", "fp8", "vectori", "intrinsic", "exp", "division", "assembly", "inner loop",
                        "compile to"),
    "scheduling": ("occupancy", "wave", "warp", "blocks per", "per sm", "tail", "pipelin", "stage", "overlap",
                   "load balanc", "persistent", "split-k", "grid", "idle", "schedul", "thread block", "cta"),
    "launch": ("launch", "stream", "synchron", "sync", "host", "allocat", "overhead", "graph", "wall clock",
               "wall-clock", "memcpy", "cpu side", "latency"),
    "measurement": ("measure", "noise", "spread", "timing", "time", "profile", "profil", "peak", "roofline",
                    "benchmark", "clock", "variance", "run it again", "rerun", "re-run", "median", "% of",
                    "ncu", "nsys", "how close", "numbers", "faster", "slower", "speedup", "win", "geomean",
                    "ratio", "results"),
    "correctness": ("correct", "error", "toleranc", "reference", "nan", "inf", "wrong", "fail", "accura",
                    "verify", "same operation", "edge case", "mismatch", "test", "bug", "broken", "valid"),
    "toolchain": ("compiler", "compile", "nvcc", "flag", "build", "target", "sm_", "-o3", "library", "cublas",
                  "cutlass", "link", "version", "toolkit", "driver", "cmake", "install"),
}

#: Decision-point kind -> words that suggest it, for questions asked with no point open.
TRIGGER_WORDS: dict[str, tuple[str, ...]] = {
    "suspicious_win": ("noise", "real", "too good", "suspicious", "crazy", "accurate", "same operation", "too fast",
                       "believ", "fluke", "jump"),
    "limit_claim": ("limit", "peak", "bound", "can't", "cannot", "impossible", "fastest", "as fast", "ceiling",
                    "roofline", "hardware", "headroom"),
    "correctness_break": ("wrong", "fail", "toleranc", "nan", "mismatch", "incorrect", "broke", "error"),
    "regression": ("slower", "regress", "worse", "drop", "lost"),
    "completion_claim": ("done", "finished", "complete", "goal", "ready"),
    "loop": ("again and again", "same error", "stuck", "loop", "repeat", "keep"),
    "start": ("before you", "before any", "first", "seed", "plan", "start"),
}

_ARCH_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sm90", ("hopper", "h100", "h200", "h800", "gh200", "sm90", "sm_90", "wgmma", "tma", "setmaxnreg", "dsmem")),
    ("sm100", ("blackwell", "b200", "b100", "gb200", "sm100", "sm_100", "tcgen05", "tmem", "tensor memory", "umma")),
    ("sm80", ("ampere", "a100", "sm80", "sm_80", "cp.async")),
    ("cpu", ("avx", "simd", "neon", "openmp", "numa", "cache line", "cacheline", "cpu", "vectorisation report",
             "perf stat")),
)
_GPU_WORDS = ("warp", "sass", "ptx", "shared memory", "smem", "occupancy", "gpu", "cuda", "tensor core", "per sm",
              "sms", "thread block", "blocks per", "nvcc", "ncu", "nsys", "kernel launch", "dram", "hbm")


_table_cache: dict[int, tuple[re.Pattern, dict[str, tuple[str, ...]]]] = {}


def _word_score(texts: list[str], table: Mapping[str, tuple[str, ...]]) -> Counter:
    """{key: how many of its words occur in a text (each at the start of a word), summed over the
    first 50 texts}: one regex pass per text over every key's words."""
    got = _table_cache.get(id(table))
    if got is None:
        owners: dict[str, list[str]] = {}
        for key, words in table.items():
            for w in words:
                owners.setdefault(w, []).append(key)
        alt = "|".join(re.escape(w) for w in sorted(owners, key=len, reverse=True))
        got = _table_cache[id(table)] = (re.compile(r"(?<![a-z0-9])(?:" + alt + ")"),
                                         {w: tuple(k) for w, k in owners.items()})
    rx, owners_of = got
    score: Counter = Counter()
    for t in texts[:50]:
        for w in sorted(set(rx.findall(t.lower()))):  # (a set's order changes with the process's hash seed)
            for key in owners_of[w]:
                score[key] += 1
    return score


_ARCH_TABLE: dict[str, tuple[str, ...]] = {**dict(_ARCH_WORDS), "gpu": _GPU_WORDS}


def guess_layers(texts: list[str], limit: int = 2) -> tuple[str, ...]:
    """The layers the words of a cluster point at (most hits first); `measurement` when none."""
    score = _word_score(texts, LAYER_WORDS)
    if not score:
        return ("measurement",)
    top = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))  # ties in the table's names' order
    best = top[0][1]
    return tuple(layer for layer, n in top[:limit] if n * 2 >= best)


def guess_triggers(kinds: Mapping[str, int], texts: list[str], limit: int = 3) -> tuple[str, ...]:
    """The decision-point kinds that preceded the askings (most frequent first), else guessed from words."""
    seen = [k for k, _ in sorted(kinds.items(), key=lambda kv: (-kv[1], DECISION_KINDS.index(kv[0])
                                                                 if kv[0] in DECISION_KINDS else 99))
            if k in DECISION_KINDS]
    if seen:
        return tuple(seen[:limit])
    guessed = [k for k, _ in sorted(_word_score(texts, TRIGGER_WORDS).items(), key=lambda kv: (-kv[1], kv[0]))[:2]]
    return tuple(guessed) if guessed else ("stall",)


def guess_arch(texts: list[str]) -> tuple[str, ...]:
    """`any` unless most askings name one architecture's features (or GPU-only ones)."""
    texts = texts[:50]
    if not texts:
        return ("any",)
    half = len(texts) / 2
    per_text = [_word_score([t], _ARCH_TABLE) for t in texts]
    for tag, _ in _ARCH_WORDS:
        if sum(1 for sc in per_text if sc[tag]) > half:
            return (tag,)
    if sum(1 for sc in per_text if sc["gpu"]) > half:
        return ("gpu",)
    return ("any",)


# -- YAML -----------------------------------------------------------------------------------------

def _q(s: str) -> str:
    """A YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(s, ensure_ascii=False)


def _flow(value) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(round(value, 6))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and re.fullmatch(r"[a-z_][a-z0-9_.-]*", value):
        return value
    return _q(str(value))


def candidate_item(cluster) -> dict:
    """A cluster as a bank item (a plain mapping in the bank's field order)."""
    note = f"mined: asked {cluster.stats.get('asked', 0)}x in {cluster.stats.get('sessions', 0)} session(s)"
    if cluster.example != cluster.text:
        ex = " ".join(cluster.example.split())
        note += "; e.g. " + (ex if len(ex) <= 200 else ex[:199] + "\u2026")
    if getattr(cluster, "rules_made", None):
        note += f"; grouped by the model from {len(cluster.rules_made)} of the rules' candidates"
    if getattr(cluster, "screened_in", 0):
        note += f"; {cluster.screened_in} asking(s) read as questions by the model, not the rules"
    return {
        "id": cluster.id, "text": cluster.text, "triggers": list(cluster.triggers), "layers": list(cluster.layers),
        "arch": list(cluster.arch), "provenance": "mined", "verified": False, "stats": dict(cluster.stats),
        "note": note,
    }


def item_yaml(item: Mapping, indent: str = "  ") -> str:
    lines = []
    first = True
    for key in ("id", "text", "triggers", "layers", "arch", "requires", "provenance", "verified", "stats", "note"):
        if key not in item:
            continue
        v = item[key]
        if key in ("text", "note"):
            val = _q(v)
        else:
            val = _flow(v)
        lines.append(f"{indent}{'- ' if first else '  '}{key}: {val}")
        first = False
    return "\n".join(lines) + "\n"


def bank_yaml(items: list[Mapping], *, header: str = "", set_name: str = "mined",
              description: str = "Questions mined from steering logs (kernelseek mine); unverified.") -> str:
    out = []
    for line in header.splitlines():
        out.append(f"# {line}".rstrip())
    out.append(f"set: {set_name}")
    out.append(f"description: {_q(description)}")
    out.append("defaults:")
    out.append("  provenance: mined")
    out.append("  verified: false")
    if not items:
        out.append("items: []")
        return "\n".join(out) + "\n"
    out.append("items:")
    text = "\n".join(out) + "\n"
    return text + "".join(item_yaml(it) for it in items)


# -- merging into an existing file ---------------------------------------------------------------

class MergeError(Exception):
    exit_code = 2


def merge_bank_text(text: str, name: str, stats_by_id: Mapping[str, dict], new_items: list[Mapping]) -> str:
    """The bank file's text with matched items' stats replaced and new items appended."""
    import yaml

    from sessions.yamlfile import YamlFileError, parse_yaml

    try:
        root = parse_yaml(text, name, nodes=True)
    except YamlFileError as exc:
        raise MergeError(str(exc)) from None
    if root is None:
        seq = None
    elif isinstance(root, yaml.SequenceNode):
        seq = root
    elif isinstance(root, yaml.MappingNode):
        seq = None
        for k, v in root.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "items":
                seq = v
        if seq is None:
            raise MergeError(f"{name}: no `items` to merge into")
    else:
        raise MergeError(f"{name}: a bank file is a mapping with `items`")
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in character offsets
    item_indent = "  "
    if seq is not None and isinstance(seq, yaml.SequenceNode) and seq.flow_style:
        raise MergeError(f"{name}: `items` is a flow sequence ([...]); write it as a block list to merge into it")
    items = seq.value if isinstance(seq, yaml.SequenceNode) else []
    for node in items:
        if not isinstance(node, yaml.MappingNode):
            continue
        fields = {k.value: (k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        idn = fields.get("id")
        if idn is None or not isinstance(idn[1], yaml.ScalarNode):
            continue
        item_id = idn[1].value
        key_col = idn[0].start_mark.column
        item_indent = " " * max(0, node.start_mark.column - 2) if node.start_mark.column >= 2 else ""
        if item_id not in stats_by_id:
            continue
        flow = _flow(stats_by_id[item_id])
        if node.flow_style:
            raise MergeError(f"{name}:{node.start_mark.line + 1}: item {item_id!r} is a flow mapping ({{...}}); "
                             f"write it as a block to merge into it")
        if "stats" in fields:
            k, v = fields["stats"]
            edits.append((k.start_mark.index, _value_end(v), f"stats: {flow}"))
        else:
            # after the item's last value, on a line of its own at the keys' column
            line_end = text.find("\n", _value_end(node))
            pos = len(text) if line_end < 0 else line_end
            edits.append((pos, pos, "\n" + " " * key_col + f"stats: {flow}"))
    out = text
    for start, end, rep in sorted(edits, key=lambda e: -e[0]):
        out = out[:start] + rep + out[end:]
    if new_items:
        if not out.endswith("\n"):
            out += "\n"
        if isinstance(seq, yaml.SequenceNode) and not items:
            # `items: []` or an empty block: rewrite the key's value as a block list
            out = re.sub(r"(?m)^items:\s*\[\s*\]\s*$", "items:", out, count=1)
            if re.search(r"(?m)^items:\s*$", out) is None:
                out += "items:\n"
        elif seq is None and root is None:
            out += "items:\n"
        out += "".join(item_yaml(it, item_indent) for it in new_items)
    return out


def _value_end(node) -> int:
    """Where a node's own text ends (a block collection's end mark runs on to the next token)."""
    import yaml

    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _value_end(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _value_end(node.value[-1])
    return node.end_mark.index


# -- the files `kernelseek mine` writes ------------------------------------------------------------

def text_key(text: str) -> str:
    """Two texts the bank validator would call the same (questions/loader.py's rule)."""
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def write_atomic(path, text: str) -> None:
    import os
    import tempfile
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def plan_bank(result, *, existing=(), min_asked: int = 1) -> tuple[list[dict], dict[str, list]]:
    """(new items to write, {existing item id: the askings that matched it}).

    `existing` are the items of the bank being merged into (and of the reference bank): a cluster
    that matched one of them, or whose text is one of theirs, updates it instead of being new.
    """
    by_key = {text_key(it.text): it.id for it in existing}
    ids = {it.id for it in existing}
    new: list[dict] = []
    matched: dict[str, list] = {}
    for c in result.ranked():
        target = c.match or by_key.get(text_key(c.text))
        if target is not None:
            matched.setdefault(target, []).extend(c.members)
            continue
        if c.stats.get("asked", 0) < min_asked:
            continue
        item = candidate_item(c)
        while item["id"] in ids:
            item["id"] = item["id"][:62] + "-x" if len(item["id"]) > 62 else item["id"] + "-x"
        ids.add(item["id"])
        by_key[text_key(item["text"])] = item["id"]
        new.append(item)
    return new, matched


def save_bank(result, out, *, merge=None, merge_items=(), reference_items=(), min_asked: int = 1,
              header: str = "") -> dict:
    """Write the candidates to `out` (folded into `merge`'s text when given); validate what was written.

    Returns {"new": [ids], "updated": [ids], "known": {item id: askings} (matches outside `merge`)}.
    """
    from pathlib import Path

    from questions.loader import read_bank
    from questions.mine.outcome import cluster_stats

    existing = list(merge_items) + [it for it in reference_items if it.id not in {m.id for m in merge_items}]
    new, matched = plan_bank(result, existing=existing, min_asked=min_asked)
    merge_ids = {it.id for it in merge_items}
    updated = {i: cluster_stats(ms) for i, ms in matched.items() if i in merge_ids}
    known = {i: len(ms) for i, ms in matched.items() if i not in merge_ids}
    if merge is not None:
        try:
            old = Path(merge).read_text(encoding="utf-8")
        except OSError as exc:
            raise MergeError(f"{merge}: cannot read: {exc.strerror or exc}") from None
        text = merge_bank_text(old, str(merge), updated, new)
    else:
        text = bank_yaml(new, header=header)
    out = Path(out)
    probe = out.with_name(f".{out.stem}.check{out.suffix or '.yaml'}")
    write_atomic(probe, text)
    try:
        _, problems = read_bank([probe])
    finally:
        try:
            probe.unlink()
        except OSError:
            pass
    if problems:
        raise MergeError(f"{out}: the bank written would not load: {str(problems[0]).replace(str(probe), str(out))}")
    write_atomic(out, text)
    return {"new": [it["id"] for it in new], "updated": sorted(updated), "known": known, "items": new}
