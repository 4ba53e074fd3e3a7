"""Attack candidates (attacks/): each file is an agent's attempt at a "GOAL MET" it did not earn.

Most wrap the task's seed: `attack_source` puts the seed first, with its entry renamed
`seed_<name>` (static), then the attack's code, which defines the entry. Placeholders `@NAME@`
are filled from keyword arguments (paths an agent would know). Used by test_eval_attacks.py (cpu)
and test_eval_attacks_gpu.py (cuda, on a GPU node).
"""
from __future__ import annotations

from pathlib import Path

from evaluator.task import load_task

ATTACKS = Path(__file__).resolve().parent / "attacks"
# the seed's entry as written, and what it becomes in an attack
RENAME = {
    "softmax-cpu": ("int ks_softmax(", "static int seed_softmax("),
    "attention-cpu": ("int ks_attention(", "static int seed_attention("),
    "rmsnorm-cuda": ('extern "C" int ks_rmsnorm(', "static int seed_rmsnorm("),
    "attention-fwd-sm90": ('extern "C" int ks_attention_fwd(', "static int seed_attention_fwd("),
}
HEADER = {"softmax-cpu": "softmax.h", "attention-cpu": "attention.h", "rmsnorm-cuda": "rmsnorm.h",
          "attention-fwd-sm90": "attention.h"}


def attack_source(name: str, task: str, **fill: str) -> str:
    text = (ATTACKS / name).read_text()
    for key, value in fill.items():
        text = text.replace(f"@{key}@", value)
    assert "@" not in text, f"{name}: a placeholder is not filled"
    old, new = RENAME[task]
    wrapper = new.split()[-1]  # seed_xxx(
    if wrapper in text:
        seed = load_task(task).seed.read_text()
        assert seed.count(old) == 1, f"the seed of {task} no longer defines {old!r}"
        return seed.replace(old, new) + "\n" + text
    return f'#include "{HEADER[task]}"\n' + text


def attack(name: str, task: str, folder: Path, **fill: str) -> Path:
    """Write the attack's full source into folder; its path."""
    path = folder / name
    path.write_text(attack_source(name, task, **fill))
    return path
