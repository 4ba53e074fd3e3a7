"""The tree's own rules, checked over every tracked file: no module imports a private name (one
starting with `_`) from another module, and the README's layout table names exactly the top-level
folders. Both read the files git tracks (and the untracked ones it does not ignore), so a new file
is held to them the moment it exists."""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(),
                                reason="needs git and a checkout")


def tree_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return [f for f in out if f and (REPO / f).is_file()]


def private_imports(source: str) -> list[tuple[int, str]]:
    """(line, what) for each import of a name starting with one underscore (dunders are the
    language's, not a module's secrets)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
            where = "." * node.level + (node.module or "")
            found += [(node.lineno, f"from {where} import {n}") for n in names
                      if n.startswith("_") and not n.startswith("__")]
            if node.module:  # `from a._b import c`: a private module reached into
                found += [(node.lineno, f"from {where} import ...") for part in node.module.split(".")
                          if part.startswith("_") and not part.startswith("__")][:1]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names
                      if any(p.startswith("_") and not p.startswith("__") for p in a.name.split("."))]
    return found


def test_the_private_import_check_sees_every_form():
    source = ("from console.model import _HANDLERS, Row\nfrom .x import _y\nimport a._b\n"
              "from a._b import c\nfrom __future__ import annotations\nfrom m import __version__\n")
    assert [line for line, _ in private_imports(source)] == [1, 2, 3, 4]


def test_no_module_imports_a_private_name_from_another():
    offences = []
    for f in tree_files():
        if f.endswith(".py"):
            offences += [f"{f}:{line}: {what}" for line, what in private_imports((REPO / f).read_text())]
    assert not offences, "private names imported across modules:\n" + "\n".join(offences)


def layout_folders(readme: str) -> set[str]:
    """The folders the README's "## Layout" table names in its first column (`tests/` and the
    like; rows naming a subfolder, `tests/support/`, count for their top-level folder)."""
    section = readme.split("\n## Layout", 1)[1].split("\n## ", 1)[0]
    folders = set()
    for line in section.splitlines():
        m = re.match(r"\|\s*`([^`]+)/`\s*\|", line)
        if m:
            folders.add(m.group(1).split("/")[0])
    return folders


def test_the_readme_layout_table_names_exactly_the_top_level_folders():
    tracked = {f.split("/")[0] for f in tree_files() if "/" in f and not f.startswith(".")}
    named = layout_folders((REPO / "README.md").read_text())
    assert named == tracked, (f"in the README's layout table but not in the tree: {sorted(named - tracked)}; "
                              f"in the tree but not in the table: {sorted(tracked - named)}")


def test_no_loose_files_at_the_top_level():
    """What belongs at the top is the project's own: a stray job log or scratch file is not."""
    loose = {f for f in tree_files() if "/" not in f and not f.startswith(".")}
    assert loose <= {"README.md", "pyproject.toml"}, sorted(loose - {"README.md", "pyproject.toml"})


# what each top-level package may import of the others (the README's layout table): only downward;
# kernels/ is data that the application names, and its harnesses use the evaluator's harness API
MAY_IMPORT = {
    "sessions": set(),
    "evaluator": set(),
    "questions": {"sessions"},
    "agent": {"sessions", "evaluator", "questions", "kernels"},
    "console": {"sessions", "evaluator", "questions", "agent", "kernels"},
    "kernels": {"evaluator"},
}


def project_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) for each absolute import of one of the project's packages, at any depth of
    the file (an import inside a function counts as much as one at the top)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in MAY_IMPORT]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in MAY_IMPORT:
            found.append((node.lineno, node.module))
    return found


def test_packages_import_only_downward():
    offences = []
    for f in tree_files():
        top = f.split("/")[0]
        if f.endswith(".py") and top in MAY_IMPORT:
            offences += [f"{f}:{line}: imports {module}" for line, module in project_imports((REPO / f).read_text())
                         if module.split(".")[0] not in MAY_IMPORT[top] | {top}]
    assert not offences, "imports upward:\n" + "\n".join(offences)


def test_the_evaluators_own_tasks_folder_is_the_applications():
    """The evaluator finds shipped tasks by path, not by importing kernels; both name one folder."""
    from evaluator.task import SHIPPED_TASKS_DIR
    from kernels import TASKS_DIR

    assert SHIPPED_TASKS_DIR.resolve() == TASKS_DIR.resolve()
    assert project_imports("def f():\n    from kernels import TASKS_DIR\n") == [(2, "kernels")]
