"""Candidates in the bank's format, and folding them into an existing bank without duplicates."""
from __future__ import annotations

import shutil

import pytest

from mine_corpus import generate
from questions.loader import BANK_DIR, load_bank, read_bank
from questions.mine import MineConfig, mine, save_bank
from questions.mine.write import guess_arch, guess_layers, guess_triggers, merge_bank_text


@pytest.fixture(scope="module")
def steering(tmp_path_factory):
    corpus = generate(31, n_messages=900, n_sessions=40)
    return corpus.write_steering_log(tmp_path_factory.mktemp("steer") / "steering.jsonl")


def test_candidates_load_with_the_bank_loader_and_beside_the_bundled_bank(steering, tmp_path):
    bundled = load_bank()
    result = mine([steering], bank=bundled)
    out = tmp_path / "mined.yaml"
    saved = save_bank(result, out, reference_items=list(bundled))
    bank = load_bank([out])  # raises on any problem
    assert len(bank) == len(saved["new"]) > 10
    for item in bank:
        assert item.provenance == "mined" and item.verified is False
        assert item.id.startswith("mined-") and item.text and len(item.text) <= 160
        assert item.stats["asked"] >= 1 and item.stats["sessions"] >= 1 and item.triggers and item.layers
    load_bank(list(bundled.files) + [out])  # no duplicate ids or texts with the bundled bank
    # clusters that match bundled items are not written again
    known = {c.match for c in result.clusters if c.match}
    assert known and not known & {it.id for it in bank}


def test_merge_replaces_stats_keeps_comments_and_appends_new_items(steering, tmp_path):
    target = tmp_path / "core.yaml"
    shutil.copy(BANK_DIR / "core.yaml", target)
    before_text = target.read_text()
    before = load_bank([target])
    result = mine([steering], bank=before)
    saved = save_bank(result, target, merge=target, merge_items=list(before))
    after_text = target.read_text()
    after = load_bank([target])
    assert after_text.startswith(before_text[:400])  # the file's head, comments and all, is as it was
    assert "# --- stall: no gain for a while" in after_text
    assert saved["updated"] and saved["new"]
    assert len(after) == len(before) + len(saved["new"])
    for item_id in saved["updated"]:
        assert after.get(item_id).stats["asked"] >= 1
        assert after.get(item_id).text == before.get(item_id).text
    untouched = [it for it in before if it.id not in saved["updated"]]
    assert all(after.get(it.id).stats == it.stats for it in untouched)
    # merging the same logs again adds nothing and gives the same statistics
    again = mine([steering], bank=after)
    saved2 = save_bank(again, target, merge=target, merge_items=list(after))
    final = load_bank([target])
    assert saved2["new"] == [] and len(final) == len(after)
    assert {it.id: it.stats for it in final} == {it.id: it.stats for it in after}


def test_merge_into_a_file_whose_items_have_block_stats_or_none(tmp_path):
    text = ("# my bank\nset: mine\nitems:\n"
            "  - id: win-noise\n    text: \"Is that win noise? Run it again and show me the spread.\"\n"
            "    triggers: [suspicious_win]\n    layers: [measurement]\n    stats:\n      asked: 1\n      sessions: 1\n"
            "    note: kept\n"
            "  - id: spills\n    text: \"Does the kernel spill registers?\"\n    triggers: [stall]\n"
            "    layers: [toolchain]  # trailing comment\n")
    stats = {"win-noise": {"asked": 4, "sessions": 2, "kinds": {"suspicious_win": 3}},
             "spills": {"asked": 2, "sessions": 1}}
    new = [{"id": "mined-x", "text": "Is the L2 flushed?", "triggers": ["suspicious_win"],
            "layers": ["measurement"], "arch": ["any"], "provenance": "mined", "verified": False,
            "stats": {"asked": 3, "sessions": 3}}]
    out = merge_bank_text(text, "mine.yaml", stats, new)
    path = tmp_path / "mine.yaml"
    path.write_text(out)
    bank, problems = read_bank([path])
    assert not problems, problems
    assert bank.get("win-noise").stats == {"asked": 4, "sessions": 2, "kinds": {"suspicious_win": 3}}
    assert bank.get("win-noise").note == "kept" and bank.get("spills").stats == {"asked": 2, "sessions": 1}
    assert bank.get("mined-x").provenance == "mined" and "# trailing comment" in out and out.startswith("# my bank")


def test_guesses_from_words():
    assert guess_layers(["Are there shared memory bank conflicts?"])[0] == "memory_hierarchy"
    assert guess_layers(["Does the inner loop run on the tensor cores? Check the SASS."])[0] == "instruction_mix"
    assert guess_layers(["What is the readme about?"]) == ("measurement",)
    assert guess_triggers({"stall": 3, "limit_claim": 5}, []) == ("limit_claim", "stall")
    assert guess_triggers({}, ["Is that limit a property of the hardware?"])[0] == "limit_claim"
    assert guess_triggers({}, ["what is this"]) == ("stall",)
    assert guess_arch(["Does it use wgmma?", "is TMA used for the loads"]) == ("sm90",)
    assert guess_arch(["how many warps per SM?", "what's the occupancy per SM"]) == ("gpu",)
    assert guess_arch(["is the win noise?"]) == ("any",)
    assert guess_arch(["Does the compiler vectorise with AVX?"]) == ("cpu",)


def test_a_cluster_like_an_item_for_another_architecture_is_still_new(tmp_path):
    steer = tmp_path / "s.jsonl"
    import json
    steer.write_text("".join(json.dumps({"t": float(i), "session": f"/x/{i}", "seq": 1, "source": "free",
                                         "text": "Does the working set fit in L2?"}) + "\n" for i in range(3)))
    bundled = load_bank()
    result = mine([steer], MineConfig(), bank=bundled)
    (c,) = result.clusters
    assert c.match is None  # the bundled near twin is `cpu-working-set`, for CPU tasks only


def test_merge_into_a_bare_list_prefers_its_own_item_over_a_bundled_twin(tmp_path):
    import json

    steering = tmp_path / "steering.jsonl"
    asked = ["Is that 1.3x win noise? Run it again and show me the spread.", "is this win real or just noise? rerun",
             "Is the 2.1x win noise? Show me the spread.", "Does the kernel spill registers?"]
    steering.write_text("".join(json.dumps({"t": float(i), "session": f"/gone/{i}", "seq": 1, "source": "free",
                                            "text": t}) + "\n" for i, t in enumerate(asked)))
    mine_file = tmp_path / "mine.yaml"
    mine_file.write_text('- id: my-noise\n  text: "Is that win noise? Run it again and show me the spread."\n'
                         "  triggers: [suspicious_win]\n  layers: [measurement]\n")
    own = load_bank([mine_file])
    bundled = [it for it in load_bank() if it.id not in {i.id for i in own}]
    from questions.loader import Bank

    result = mine([steering], bank=Bank(list(own) + bundled))
    saved = save_bank(result, mine_file, merge=mine_file, merge_items=list(own), reference_items=bundled)
    merged = load_bank([mine_file])
    assert saved["updated"] == ["my-noise"] and merged.get("my-noise").stats["asked"] == 3
    assert mine_file.read_text().startswith("- id: my-noise\n")
    assert len(merged) == 1 + len(saved["new"])


def test_guessed_layers_and_triggers_do_not_depend_on_the_process_hash_seed(tmp_path):
    # a tie between two layers was broken by a set's order, which changes with PYTHONHASHSEED: the
    # same log mined twice wrote its candidates' layers in different orders
    import subprocess
    import sys

    code = ("from questions.mine.write import guess_layers, guess_triggers;"
            "t = ['is the sass using wgmma and how many bytes of dram traffic per tile',"
            "     'stalled: same error again, the limit was claimed'];"
            "print(guess_layers(t), guess_triggers({}, t))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in (1, 2, 3, 4, 5)}
    assert len(outs) == 1, outs
