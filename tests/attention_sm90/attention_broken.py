"""Deliberately broken candidates of the attention task, one per feature, and which scenarios each
must fail.

Each broken candidate is the seed with one small textual patch (a bug an agent could plausibly
write), made from the current seed.cu when a test asks for its path (so they never go stale, and
no copy of the seed is kept). `feature_used(shape, feature)` says, from the scenario's shape alone,
whether the scenario exercises that feature in a way the bug changes; the GPU tests check that
each broken candidate fails exactly those scenarios. Run this file to write them out for a look.
"""
from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TASK_DIR = REPO / "kernels" / "attention-fwd-sm90"
_MADE: dict[str, Path] = {}


@dataclass(frozen=True)
class Broken:
    name: str
    feature: str
    why: str
    patches: tuple[tuple[str, str], ...]  # (exact text in seed.cu, replacement)

    @property
    def path(self) -> Path:
        """The broken source, written from the current seed.cu (once per process)."""
        if self.name not in _MADE:
            folder = Path(tempfile.mkdtemp(prefix="ks-broken-"))
            path = folder / f"{self.name}.cu"
            path.write_text(patched_source(self, (TASK_DIR / "seed.cu").read_text()))
            _MADE[self.name] = path
        return _MADE[self.name]


BROKEN = (
    Broken(
        "mask_off_by_one", "causal",
        "the causal mask lets each query see one key past its own position",
        (("if (p.causal && j > pos) return false;", "if (p.causal && j > pos + 1) return false;"),),
    ),
    Broken(
        "window_ignored", "window",
        "the sliding window is neither used to skip tiles nor to mask",
        (("    if (p.window_left >= 0 && j < pos - p.window_left) return false;\n", ""),
         ("    if (p.window_right >= 0 && j > pos + p.window_right) return false;\n", ""),
         ("    if (p.window_left >= 0) n_begin = max(0, pos_first - p.window_left);\n", ""),
         ("    if (p.window_right >= 0) n_end = min(n_end, pos_last_tok + p.window_right + 1);\n", "")),
    ),
    Broken(
        "softcap_ignored", "softcap",
        "scores are scaled but never capped",
        (("if (p.softcap > 0.f) {\n                        x = p.softcap", "if (false) {\n                        x = p.softcap"),),
    ),
    Broken(
        "wrong_page_lookup", "paged",
        "the block table is skipped: logical page n is read from physical block n",
        (("int block = s.pages[j / p.page_size];", "int block = j / p.page_size;"),),
    ),
    Broken(
        "wrong_gqa_group", "gqa",
        "query heads are grouped interleaved (h % Hkv) instead of contiguously (h / group)",
        (("int token = packed / group, head = g * group + packed % group;\n        return",
          "int token = packed / group, head = (packed % group) * p.num_heads_kv + g;\n        return"),
         ("const int token = packed / group, head = g * group + packed % group;",
          "const int token = packed / group, head = (packed % group) * p.num_heads_kv + g;")),
    ),
)


def patched_source(broken: Broken, seed_text: str) -> str:
    text = seed_text
    for old, new in broken.patches:
        count = text.count(old)
        if count != 1:
            raise ValueError(f"{broken.name}: patch text found {count} times in seed.cu: {old[:60]!r}")
        text = text.replace(old, new)
    header = f"// BROKEN on purpose ({broken.name}): {broken.why}.\n// Made from seed.cu by tests/attention_sm90/attention_broken.py.\n"
    return header + text


# ---- which scenarios use a feature -----------------------------------------------------------------

def _pairs_without(harness, shape, **changes) -> int:
    from dataclasses import replace
    return harness.attended_pairs(replace(shape, **changes))


def feature_used(harness, shape, feature: str) -> bool:
    """Does the scenario exercise `feature` so that the matching bug changes its result?"""
    if feature == "causal":  # the mask removes some in-range key that the window would allow
        return shape.causal and harness.attended_pairs(shape) < _pairs_without(harness, shape, causal=False)
    if feature == "window":
        return harness.attended_pairs(shape) < _pairs_without(harness, shape, wl=-1, wr=-1)
    if feature == "softcap":
        return shape.softcap > 0 and harness.attended_pairs(shape) > 0
    if feature == "paged":  # some attended key sits in a block other than its logical page number
        if not shape.page:
            return False
        for b in range(shape.batch):
            lo, hi = harness.key_range(shape, b)
            ok = hi >= lo
            if not ok.any():
                continue
            pages = np.arange(lo[ok].min() // shape.page, hi[ok].max() // shape.page + 1)
            if (shape.block_table[b, pages] != pages).any():
                return True
        return False
    if feature == "gqa":  # some query head's kv head differs between contiguous and interleaved
        heads = np.arange(shape.hq)
        return harness.attended_pairs(shape) > 0 and bool(((heads // shape.group) != (heads % shape.hkv)).any())
    raise ValueError(feature)


if __name__ == "__main__":
    for b in BROKEN:
        print(b.path)
    sys.exit(0)
