"""A task's trusted files, pinned by content: `PINNED` in the task folder lists their sha256.

The seed (every ratio is against it), the reference, the harness (inputs and the float64
reference), the headers and task.yaml decide what "correct" and "faster" mean; an agent or a
candidate that could change them could change the verdict. `verify_pins` runs at the start of
every evaluation, before the harness is imported: a file whose bytes differ from its pin, a pinned
file that is missing and a file in the folder that is not pinned (a header dropped next to the
seed would shadow a system one, since the folder is on the include path) are each a TaskError
naming the file. Task authors write the list with `python -m evaluator pin TASK`.

Tasks shipped under kernels/ must carry a PINNED file; a task elsewhere (one being written) may
go without, and its report then says `pinned: false`.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from evaluator.errors import TaskError

PIN_FILE = "PINNED"
UNPINNED = ("README.md", PIN_FILE)  # documentation and the list itself


def pinned_files(folder: Path) -> list[Path]:
    """The files of a task folder that are pinned: all but documentation, the list and caches."""
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.name not in UNPINNED and not p.name.startswith(".")
                  and p.suffix not in (".pyc",))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pin_text(folder: Path) -> str:
    lines = ["# sha256 of this task's trusted files, checked at every evaluation (python -m evaluator pin)"]
    lines += [f"{_sha(p)}  {p.name}" for p in pinned_files(folder)]
    return "\n".join(lines) + "\n"


def write_pins(folder: Path) -> Path:
    path = folder / PIN_FILE
    path.write_text(pin_text(folder))
    return path


def read_pins(folder: Path) -> dict[str, str] | None:
    """{file name: sha256} from PINNED, or None when the folder has none."""
    path = folder / PIN_FILE
    if not path.is_file():
        return None
    pins: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or len(parts[0]) != 64:
            raise TaskError(f"{path}:{n}: expected '<sha256>  <file>', got {line[:80]!r}")
        pins[parts[1]] = parts[0]
    return pins


def verify_pins(folder: Path, required: bool) -> bool:
    """Check the folder against its PINNED list; True when pinned, False when it has none and
    none is required. TaskError naming the first file that does not match."""
    pins = read_pins(folder)
    if pins is None:
        if required:
            raise TaskError(f"{folder / PIN_FILE}: missing: a shipped task's trusted files must be pinned "
                            f"(restore it from the repository)")
        return False
    for name, digest in pins.items():
        path = folder / name
        if not path.is_file():
            raise TaskError(f"{path}: pinned in {PIN_FILE} but missing (restore it from the repository)")
        if _sha(path) != digest:
            raise TaskError(f"{path}: content does not match its pin in {folder / PIN_FILE} (a trusted file was "
                            f"changed; restore it, e.g. `git checkout -- {path}`)")
    for path in pinned_files(folder):
        if path.name not in pins:
            raise TaskError(f"{path}: not pinned in {folder / PIN_FILE}: a task folder holds only its pinned "
                            f"files (remove it, or re-pin the task if you are its author)")
    return True
