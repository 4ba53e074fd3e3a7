"""Learned cues (questions/mine/cues.py, learned by questions/benchmark/cues.py from planted paraphrases)."""
from __future__ import annotations

import json

from questions.benchmark.cues import cues_document, learn, main, question_topics
from questions.benchmark.planted import PlantedSet
from questions.mine import cues as cues_mod
from questions.mine.cues import cue_words, learned_topics
from questions.mine.miner import with_topics


def _set(name: str, questions: dict[str, list[str]]) -> PlantedSet:
    return PlantedSet(name, questions)


def test_the_shipped_cues_are_what_the_sets_they_name_teach(capsys):
    # a change to the topic table or to a set leaves the cues stale: relearn them (the module says how)
    assert main(["--check"]) == 0, capsys.readouterr().err


def test_the_shipped_cues_were_not_learned_from_every_set():
    shipped = json.loads(cues_mod.CUES_FILE.read_text(encoding="utf-8"))
    assert shipped["learned_from"] and shipped["min_sets"] >= 3 and shipped["cues"]


def test_a_word_is_a_cue_only_when_several_writers_used_it_for_one_measurement():
    occupancy = ["what's the achieved occupancy, residency included?", "occupancy numbers? residency?",
                 "how much residency do we get, occupancy wise"]
    one_writer = _set("one", {"q": occupancy, "r": ["bank conflicts, residency aside?", "any bank conflicts?"]})
    assert not set(cue_words("residency")) & set(learn([one_writer]))
    three = [_set(n, {"q": occupancy}) for n in ("x", "y", "z")]
    learned = learn(three)
    assert any(learned.get(w) == "occupancy" for w in cue_words("residency")), learned


def test_a_question_s_topics_are_those_most_of_its_askings_name():
    assert question_topics(["any bank conflicts?", "bank conflicts on the transpose?", "how's it going"]) == {"bank_conflicts"}


def test_cues_apply_only_where_the_table_names_nothing_and_two_cue_words_agree(monkeypatch):
    table = {w: "occupancy" for w in cue_words("zorp blatter")}
    table.update({w: "code_diff" for w in cue_words("commit")})
    assert len(table) == 3
    monkeypatch.setattr(cues_mod, "_cues", lambda: table)
    cues_mod.voted_topics.cache_clear()
    try:
        # the adversary: one generic word ("commit") must not give a question a measurement
        assert learned_topics("which commit?") == ()
        assert learned_topics("does the zorp blatter?") == ("occupancy",)
        assert with_topics(["zorp", "blatter"], "does the zorp blatter?")[-1] == "@occupancy"
        # the table's reading stands: a cue never adds to or overrides it
        got = with_topics(["bank", "conflict", "zorp", "blatter"], "any bank conflicts when the zorp blatters?")
        assert "@bank_conflicts" in got and "@occupancy" not in got
    finally:
        cues_mod.voted_topics.cache_clear()


def test_the_learner_leaves_held_out_sets_out(tmp_path, capsys):
    out = tmp_path / "cues.json"
    assert main(["--exclude", "a", "b", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert "a" not in doc["learned_from"] and "b" not in doc["learned_from"] and "c" in doc["learned_from"]


def test_a_bad_set_is_one_clear_error(tmp_path, capsys):
    bad = tmp_path / "set_bad.yaml"
    bad.write_text("questions: [\n")
    assert main([str(bad), "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "set_bad.yaml" in err and "Traceback" not in err


def test_cues_document_records_how_it_was_learned():
    doc = cues_document([_set("x", {"q": ["any spills?", "spills?"]})])
    assert doc["learned_from"] == ["x"] and {"min_askings", "purity", "min_sets", "cues"} <= set(doc)


#: the next blind round, to be scored once held out (questions/benchmark/planted/RESULTS.md): the cues
#: scored on it must not have been learned from it (a leak would make the next figure a tuned one)
HELD_OUT_NOW = {"bw", "bx", "by", "bz", "ca", "cb", "cc", "cd", "ce", "cf", "cg", "ch", "ci", "cj", "ck", "cl", "cm", "cn", "co", "cp"}


def test_the_shipped_cues_were_not_learned_from_the_round_held_out_now():
    shipped = json.loads(cues_mod.CUES_FILE.read_text(encoding="utf-8"))
    assert not HELD_OUT_NOW & set(shipped["learned_from"]), sorted(HELD_OUT_NOW & set(shipped["learned_from"]))
