"""The bank format, the loader and validator, and the default bank's contents."""
from __future__ import annotations

import re
import textwrap

import pytest

from questions.loader import (BankError, BankItem, arch_matches, bundled_bank_files, load_bank, parse_bank_file,
                              read_bank)
from sessions.events import DECISION_KINDS

# A bank file with one planted defect per marked line. The marker names what must be said.
BROKEN = textwrap.dedent("""\
    set: broken
    defaults:
      arch: [sm90]
      colour: blue                                  # D1 cannot be given a default
    items:
      - id: ok-item
        text: "Is that win noise? Run it again and show me the spread."
        triggers: [suspicious_win]
        layers: [measurement]
      - id: bad-trigger
        text: "Where does the time go?"
        triggers: [stall, slow_down]                # D2 unknown trigger
        layers: [measurement]
      - id: ok-item                                 # D3 duplicate id
        text: "Which scenario is slowest?"
        triggers: [stall]
        layers: [measurement]
      - id: missing-text                            # D4 missing text
        triggers: [loop]
        layers: [toolchain]
      - id: typo-field
        text: "What does the profiler say?"
        trigger: [stall]                            # D5 unknown field (did you mean triggers)
        triggers: [stall]
        layers: [measurement]
      - id: bad-layer
        text: "How many bytes move?"
        triggers: [stall]
        layers: [memory]                            # D6 unknown layer
      - id: bad-arch
        text: "Is it built for the right target?"
        triggers: [loop]
        layers: [toolchain]
        arch: [sm91x]                               # D7 unknown architecture
      - id: Bad_ID                                  # D8 bad id
        text: "Is the output written everywhere?"
        triggers: [correctness_break]
        layers: [correctness]
      - id: bad-verified
        text: "Did the seed's time change?"
        triggers: [regression]
        layers: [measurement]
        verified: "yes please"                      # D9 not a boolean
      - id: bad-provenance
        text: "Which change made the jump?"
        triggers: [suspicious_win]
        layers: [measurement]
        provenance: folklore                        # D10 unknown provenance
      - id: empty-triggers
        text: "What would you measure next?"
        triggers: []                                # D11 no triggers
        layers: [measurement]
      - id: long-text
        text: "This question goes on and on and on, far longer than any question a steerer could read at a glance, and it also tells the agent what to do, which a bank item must never do at all, ever."   # D12 too long
        triggers: [stall]
        layers: [algorithm]
      - id: twice-key
        text: "Is the drop beyond the noise?"
        triggers: [regression]
        triggers: [stall]                           # D13 key given twice
        layers: [measurement]
      - id: bad-stats
        text: "What is the L2 hit rate?"
        triggers: [stall]
        layers: [memory_hierarchy]
        stats: {asked: many}                        # D14 stats not a number
      - id: bad-requires
        text: "Is upstream faster?"
        triggers: [stall]
        layers: [measurement]
        requires: [upstream]                        # D15 unknown capability
      - id: same-text
        text: "Is that win noise?   Run it again and show me the spread."   # D16 same text as ok-item
        triggers: [suspicious_win]
        layers: [measurement]
      - just a string                               # D17 not a mapping
    """)


def planted(text: str) -> dict[str, int]:
    """{defect tag: line} from the markers."""
    out = {}
    for no, line in enumerate(text.splitlines(), 1):
        m = re.search(r"# (D\d+) ", line)
        if m:
            out[m.group(1)] = no
    return out


EXPECT = {  # defect -> (field, words the message must contain)
    "D1": ("defaults.colour", "cannot be given a default"),
    "D2": ("triggers", "unknown trigger 'slow_down'"),
    "D3": ("id", "duplicate id"),
    "D4": ("text", "missing"),
    "D5": ("trigger", "did you mean 'triggers'"),
    "D6": ("layers", "unknown layer 'memory'"),
    "D7": ("arch", "unknown architecture 'sm91x'"),
    "D8": ("id", "lowercase"),
    "D9": ("verified", "true or false"),
    "D10": ("provenance", "unknown provenance 'folklore'"),
    "D11": ("triggers", "at least one"),
    "D12": ("text", "at most 160"),
    "D13": ("triggers", "given twice"),
    "D14": ("stats.asked", "finite number"),
    "D15": ("requires", "unknown capability 'upstream'"),
    "D16": ("text", "same text as item 'ok-item'"),
    "D17": ("", "an item is a mapping"),
}


def test_validate_reports_every_planted_defect_with_its_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    bank, problems = read_bank([path])
    lines = planted(BROKEN)
    assert set(lines) == set(EXPECT)
    remaining = list(problems)
    for tag, (field, words) in EXPECT.items():
        hits = [p for p in remaining if p.line == lines[tag] and p.field == field and words in p.message]
        assert hits, f"{tag} (line {lines[tag]}: {field} {words!r}) not reported; got:\n" + "\n".join(map(str, problems))
        remaining.remove(hits[0])
    assert remaining == [], "unexpected problems:\n" + "\n".join(map(str, remaining))
    for p in problems:
        assert str(p).startswith(f"{path}:{p.line}: ")
    # what can be read still loads (with load_bank the problems raise; validate lists them)
    assert [it.id for it in bank] == ["ok-item", "typo-field", "twice-key", "same-text"]
    assert [p.line for p in problems] == sorted(p.line for p in problems)


def test_problem_message_names_file_line_item_and_field(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text(BROKEN)
    _, problems = read_bank([path])
    (p,) = [p for p in problems if "slow_down" in p.message]
    assert str(p) == (f"{path}:12: item 'bad-trigger': field 'triggers': unknown trigger 'slow_down' "
                      f"(known: {', '.join(DECISION_KINDS)})")


def test_yaml_syntax_error_has_its_line(tmp_path):
    path = tmp_path / "syntax.yaml"
    path.write_text("items:\n  - id: a\n    text: \"unterminated\n    triggers: [stall]\n  - id: [b\n")
    _, problems = read_bank([path])
    assert len(problems) == 1 and problems[0].line >= 3 and "not valid YAML" in problems[0].message


def test_duplicate_ids_across_files(tmp_path):
    item = "items:\n  - id: same\n    text: \"{}\"\n    triggers: [stall]\n    layers: [measurement]\n"
    (tmp_path / "a.yaml").write_text(item.format("First?"))
    (tmp_path / "b.yaml").write_text(item.format("Second?"))
    bank, problems = read_bank([tmp_path / "a.yaml", tmp_path / "b.yaml"])
    assert len(bank) == 1 and bank.get("same").text == "First?"
    (p,) = problems
    assert p.file.endswith("b.yaml") and p.line == 2 and f"first at {tmp_path / 'a.yaml'}:2" in p.message


def test_load_bank_raises_on_any_problem(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    with pytest.raises(BankError) as exc:
        load_bank([path])
    assert exc.value.exit_code == 2 and len(exc.value.problems) == len(EXPECT)
    assert "17 problem(s)" in str(exc.value) and "kernelseek bank validate" in str(exc.value)


def test_missing_and_empty_files(tmp_path):
    _, problems = read_bank([tmp_path / "nope.yaml"])
    assert problems[0].message == "no such file" and problems[0].line == 0
    (tmp_path / "empty.yaml").write_text("")
    _, problems = read_bank([tmp_path / "empty.yaml"])
    assert "empty file" in problems[0].message


def test_defaults_set_name_and_bare_list(tmp_path):
    path = tmp_path / "hop.yaml"
    path.write_text("set: hopper\ndefaults:\n  arch: [sm90]\n  provenance: mined\nitems:\n"
                    "  - id: h1\n    text: \"Does it use wgmma?\"\n    triggers: [stall]\n    layers: [instruction_mix]\n"
                    "    stats: {asked: 4, mean_gain: 0.2, kinds: {stall: 3}}\n")
    items, problems = parse_bank_file(path)
    assert problems == []
    (it,) = items
    assert it.set == "hopper" and it.arch == ("sm90",) and it.provenance == "mined" and not it.verified
    assert it.stats == {"asked": 4, "mean_gain": 0.2, "kinds": {"stall": 3}}
    assert it.source == str(path) and it.line == 6
    bare = tmp_path / "bare.yaml"
    bare.write_text("- id: b1\n  text: \"Why?\"\n  triggers: stall\n  layers: [algorithm]\n")
    items, problems = parse_bank_file(bare)
    assert problems == [] and items[0].triggers == ("stall",) and items[0].set == "bare"


@pytest.mark.parametrize("item_arch, arch, ok", [
    (("any",), None, True), (("any",), "cpu", True), (("gpu",), None, True), (("gpu",), "cpu", False),
    (("gpu",), "sm90a", True), (("sm90",), "sm90a", True), (("sm90",), "sm_90", True), (("sm90",), "sm100", False),
    (("sm90",), None, False), (("sm100",), "sm103", True), (("sm100",), "sm120", False), (("cpu",), "cpu", True),
    (("cpu",), "sm90", False), (("gpu",), "riscv", False), (("any",), "riscv", True),
])
def test_architecture_matching(item_arch, arch, ok):
    assert arch_matches(item_arch, arch) is ok


# -- the bundled bank -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bank():
    return load_bank()


def test_bundled_bank_is_valid_and_large_enough(bank):
    assert bundled_bank_files() and len(bank.files) == len(bundled_bank_files())
    counts = bank.counts()
    assert len(bank) >= 120
    assert counts["set"]["core"] >= 100
    assert counts["set"]["other_implementation"] >= 5
    assert counts["set"]["hopper"] + counts["set"]["blackwell"] >= 18
    for kind in DECISION_KINDS:
        assert counts["trigger"][kind] >= 8, kind
        assert sum(1 for it in bank if it.triggers[0] == kind) >= 5, kind  # each kind has its own questions


def test_sets_are_what_they_say(bank):
    for it in bank:
        assert it.provenance == "written"
        if it.set == "other_implementation":
            assert it.requires == ("other_implementation",)
        else:
            assert it.requires == ()
        if it.set == "hopper":
            assert it.arch == ("sm90",)
        if it.set == "blackwell":
            assert it.arch == ("sm100",)
        if it.set == "core":
            assert it.arch in (("any",), ("gpu",))


def test_every_layer_is_served(bank):
    counts = bank.counts()["layer"]
    assert all(n >= 8 for n in counts.values()), counts


# A question carries no answer: it never opens a sentence by telling the agent what to change.
PRESCRIPTIONS = re.compile(r"(?:^|[.?!]\s+)(?:Use|Try|Switch|Replace|Add|Remove|Increase|Decrease|Unroll|Fuse|Tile|"
                           r"Vectori[sz]e|Inline|Reorder|Change|Set|Enable|Disable|Move)\b")


def test_questions_are_short_questions_without_answers(bank):
    for it in bank:
        assert "?" in it.text, it.id
        assert len(it.text) <= 120, it.id
        assert not PRESCRIPTIONS.search(it.text), it.id


def test_register_examples_are_in_the_bank(bank):
    texts = {it.text for it in bank}
    for example in ("Is that win noise? Run it again and show me the spread.",
                    "Does the baseline win on kernel time or only on wall clock?",
                    "Is that limit a property of the hardware or of your design?"):
        assert example in texts


def test_item_round_trips_to_dict(bank):
    d = bank.get("win-noise").to_dict()
    assert d["triggers"] == ["suspicious_win"] and d["source"].endswith("core.yaml") and d["line"] > 0
    assert BankItem(**{**d, **{k: tuple(d[k]) for k in ("triggers", "layers", "arch", "requires")}}) == bank.get("win-noise")
