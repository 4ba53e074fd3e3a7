"""The shared reader of YAML files people write: a bad or unreadable file is one line naming the
file (and the line), and every caller says it the same way in its own error class."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sessions.yamlfile import YamlFileError, parse_yaml, read_yaml

REPO = Path(__file__).resolve().parents[2]

BAD = [  # (text, the line pyyaml's marks point at, a word of the problem)
    ("a: 1\nb: [x, y\n", 3, "']'"),  # a flow list never closed: the error is at the end
    ("a: 1\nb: 2\n  c: 3\n", 3, "mapping values"),
    ("items:\n  - id: x\n    text: 'unclosed\n", 4, "while scanning a quoted scalar at line 3"),
    ("a: \"" + "é" * 300 + "\"\n" + "".join(f"k{i}: {i}\n" for i in range(8)) + "c: \"x\x07y\"\n", 10,
     "#x0007"),  # a control character after 600 bytes of two-byte ones: counted in lines, not bytes
]


@pytest.mark.parametrize("nodes", [False, True], ids=["data", "nodes"])
@pytest.mark.parametrize("text,line,word", BAD)
def test_a_bad_file_is_one_line_with_its_line(tmp_path, text, line, word, nodes):
    f = tmp_path / "bank.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(YamlFileError) as caught:
        read_yaml(f, nodes=nodes)
    exc = caught.value
    assert exc.line == line
    assert str(exc).startswith(f"{f}:{line}: not valid YAML (") and str(exc).endswith(")")
    assert word in str(exc) and "\n" not in str(exc)
    assert not exc.missing


def test_a_tag_safe_load_refuses_is_invalid_yaml_at_its_line(tmp_path):
    f = tmp_path / "agent.yaml"
    f.write_text("model: x\nrun: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(YamlFileError, match=r"agent\.yaml:2: not valid YAML \(could not determine a constructor"):
        read_yaml(f)


def test_a_missing_file_says_so_and_is_marked_missing(tmp_path):
    with pytest.raises(YamlFileError) as caught:
        read_yaml(tmp_path / "none.yaml")
    assert str(caught.value) == f"{tmp_path / 'none.yaml'}: cannot read: No such file or directory"
    assert caught.value.missing and caught.value.line == 0


def test_an_unreadable_file_names_why(tmp_path):
    with pytest.raises(YamlFileError) as caught:
        read_yaml(tmp_path)  # a directory where a file was expected
    assert str(caught.value) == f"{tmp_path}: cannot read: Is a directory"
    assert not caught.value.missing
    latin = tmp_path / "latin1.yaml"
    latin.write_bytes("a: 1\nb: 2\nc: caf\xe9\n".encode("latin-1"))
    with pytest.raises(YamlFileError) as caught:
        read_yaml(latin)
    assert str(caught.value) == f"{latin}:3: cannot read: not UTF-8 text (a bad byte at offset 16)"


def test_a_good_file_reads_as_data_or_as_nodes(tmp_path):
    f = tmp_path / "set.yaml"
    f.write_text("set: a\nquestions:\n  - key: k\n    asked: [one, two]\n")
    assert read_yaml(f) == {"set": "a", "questions": [{"key": "k", "asked": ["one", "two"]}]}
    root = read_yaml(f, nodes=True)
    assert [k.value for k, _ in root.value] == ["set", "questions"]
    assert root.value[1][1].value[0].start_mark.line + 1 == 3
    assert parse_yaml("", "empty.yaml") is None


def test_reading_yaml_pulls_in_nothing_a_gpu_node_lacks():
    code = ("import sys, sessions.yamlfile\n"
            "print(sorted(m for m in ('watchfiles', 'textual', 'anthropic', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def callers():
    """(name, read the file at path raising the caller's error class -> its one line)."""
    def agent_config(p):
        from agent.config import ConfigError, load_config
        with pytest.raises(ConfigError) as e:
            load_config(p)
        return str(e.value)

    def bank(p):
        from questions.loader import parse_bank_file
        items, problems = parse_bank_file(p)
        assert not items and len(problems) == 1
        return str(problems[0])

    def labels(p):
        from questions.benchmark.labels_io import LabelsError, read_label_file
        with pytest.raises(LabelsError) as e:
            read_label_file(p)
        return str(e.value)

    def planted(p):
        from questions.benchmark.planted import PlantedSetError, read_set
        with pytest.raises(PlantedSetError) as e:
            read_set(p)
        return str(e.value)

    def detector_knobs(p):
        from console.commands.detect import load_config
        from questions.detectors import ConfigError
        with pytest.raises(ConfigError) as e:
            load_config(str(p))
        return str(e.value)

    def merge(p):
        from questions.mine.write import MergeError, merge_bank_text
        with pytest.raises(MergeError) as e:
            merge_bank_text(p.read_text(), str(p), {}, [])
        return str(e.value)

    return [agent_config, bank, labels, planted, detector_knobs, merge]


@pytest.mark.parametrize("read", callers(), ids=lambda f: f.__name__)
def test_every_caller_says_a_bad_file_the_same_way(tmp_path, read):
    f = tmp_path / "file.yaml"
    f.write_text("a: 1\nb: 2\n  c: 3\n")
    line = read(f)
    assert line.startswith(f"{f}:3: not valid YAML (mapping values are not allowed")
    assert "\n" not in line
