"""Issue #12: claims read as claims, one moment one alarm, and the moments a human acts.

Each test states what a steerer would notice: which point the console shows, with which
reasons, and how often. The attacks (phrasings built to slip past a rule, or to set one off
without the thing it detects) sit next to the defences.
"""
from __future__ import annotations

import pytest

from qevents import Log, fired, started
from questions import claims
from questions.detectors import Detectors, detect
from questions.handover import hand_over
from questions.moments import fold


def conversation(task: str = "make it fast") -> Log:
    """A foreign transcript as the importers make it: a human answers every turn."""
    log = Log()
    log.add("session_start", task=task, agent="claude-code", **{"import": {"format": "claude-code"}})
    log.human(task)
    return log


# -- claims read as claims (the issue's own sentences) --------------------------------------------


@pytest.mark.parametrize("text", [
    "This is the memory-bandwidth limit of the H200.",
    "That's the roofline for this shape, so there is nothing more to get.",
    "We are achieving 3.2 TB/s of the 3.35 TB/s peak bandwidth.",
    "We've hit the bandwidth limit; no further gains are possible.",
])
def test_sentences_that_assert_a_limit_are_limit_claims(text):
    assert claims.limit_claim(text) is not None, text


@pytest.mark.parametrize("text", [
    "The theoretical peak is 790 and we are at 310, so there is plenty of headroom.",
    "We are not yet at the limit.",
    "The theoretical peak of the H200 is 989 TFLOP/s.",
    "We reach 2.1 TB/s of the 3.35 TB/s peak, far from the roofline.",
    "There is still room to improve the small shapes.",
    "If we were at the bandwidth limit, this would be as fast as it gets.",
])
def test_headroom_negation_and_bare_figures_are_not_limit_claims(text):
    assert claims.limit_claim(text) is None, text


def test_once_this_is_done_is_not_a_completion_claim():
    assert claims.completion_claim("Once this is done we can benchmark the large shapes.") is None
    assert claims.completion_claim("The optimization is complete and all scenarios pass.") is not None


def test_a_failure_count_with_an_excuse_is_a_correctness_break_without_any_evaluation():
    log = conversation()
    log.bash("make", "ok")
    log.text("178/180 correct — just bf16 rounding, safe to ignore.")
    (brk,) = fired(log.events, "correctness_break")
    assert "178/180" in brk.evidence and brk.detail["rule"] == "excused_failure"


@pytest.mark.parametrize("text", [
    "Only 2 of 180 differ, well within bf16 rounding noise.",
    "The 3 failures are minor numerical differences, expected with fp16 accumulation.",
    "2 tests failed but that's just flakiness, safe to ignore.",
])
def test_excuses_in_other_words(text):
    assert claims.excused_failure(text) is not None, text


@pytest.mark.parametrize("text", [
    "178/180 correct: the two failures are the masked rows, let me fix the mask.",  # a fix planned
    "180/180 correct, within bf16 rounding of the reference.",  # nothing failed
    "3 tests failed. Is that rounding? Let me compare against fp64.",  # a question and a check
])
def test_a_planned_fix_or_no_failure_is_not_excusing(text):
    assert claims.excused_failure(text) is None, text


def test_claiming_done_while_the_latest_run_fails_is_a_break_and_a_claim_at_once():
    log = started()
    log.eval(1.2, correct=True)
    log.eval(1.3, correct=False)
    log.text("The optimization is complete.")
    (dp,) = [p for p in detect(log.events) if p.kind != "start" and "completion_claim" in p.kinds]
    assert set(dp.kinds) == {"correctness_break", "completion_claim"} and dp.kind == "correctness_break"


# -- one moment, one alarm -----------------------------------------------------------------------


def test_a_limit_and_a_completion_claim_in_one_sentence_are_one_point_with_both_reasons():
    log = started()
    log.text("We are at the memory bandwidth limit, so the optimization is complete.")
    points = [dp for dp in detect(log.events) if dp.kind != "start"]
    assert len(points) == 1
    (dp,) = points
    assert dp.kind == "limit_claim" and dp.kinds == ("limit_claim", "completion_claim")
    assert [r["kind"] for r in dp.reasons] == ["limit_claim", "completion_claim"]
    assert dp.to_event_fields()["reasons"] == dp.reasons


def test_a_reason_found_later_about_the_same_moment_updates_that_point():
    """The claim fires on the text; the turn's end, found when the human speaks, is about the
    same text: the point gains a reason instead of a second alarm."""
    log = conversation()
    log.bash("nvcc k.cu", "ok")
    log.text("This is as fast as it gets on this hardware. Want me to clean up the code?")
    log.human("why?")
    stream = Detectors().feed_many(log.events)
    claim = next(dp for dp in stream if dp.kind == "limit_claim")
    grown = [dp for dp in stream if dp.updates == claim.id]
    assert len(grown) == 1 and set(grown[0].kinds) == {"limit_claim", "agent_question"}
    final = [dp for dp in fold(stream) if dp.kind != "start"]
    assert len(final) == 1 and final[0].id == claim.id


def test_one_loop_fires_once_and_its_count_grows():
    log = started()
    for _ in range(7):
        log.bash("make", "k.cu(12): error: identifier \"tile\" is undefined", is_error=True)
    loops = fired(log.events, "loop")
    assert len(loops) == 1 and loops[0].count == 7 and "7 times" in loops[0].evidence
    stream = Detectors().feed_many(log.events)
    assert [dp.count for dp in stream if dp.kind == "loop"] == [3, 4, 5, 6, 7]
    assert all(dp.updates == loops[0].id for dp in stream if dp.kind == "loop" and dp.count > 3)


def test_a_loop_ends_when_the_agent_moves_on_and_a_later_repeat_is_a_new_one():
    log = started()
    for _ in range(3):
        log.bash("make", "error: x undefined", is_error=True)
    for i in range(14):  # other work, more than the loop window
        log.bash(f"python step{i}.py", f"done {i}")
    for _ in range(3):
        log.bash("make", "error: x undefined", is_error=True)
    assert [dp.count for dp in fired(log.events, "loop")] == [3, 3]


def test_repeats_whose_evaluations_moved_are_not_a_loop():
    log = started()
    for g in (1.1, 1.2, 1.3):
        log.bash("make", "warning: error: x undefined", is_error=True)
        log.eval(g)  # each time the measurement moved: progress, not a loop
    assert fired(log.events, "loop") == []
    log2 = started()
    for _ in range(3):
        log2.bash("make", "warning: error: x undefined", is_error=True)
        log2.eval(1.1)  # nothing moved
    assert len(fired(log2.events, "loop")) == 1


def test_a_stall_on_top_of_an_open_loop_is_one_point():
    log = started()
    log.eval(1.2)
    for _ in range(4):
        log.eval(1.19)
    log.bash("make", "error: x undefined", is_error=True)
    log.bash("make", "error: x undefined", is_error=True)
    log.add("eval_result", summary={"geomean": 1.19, "all_correct": True, "passed": 4, "total": 4,
                                    "error": "error: x undefined"})
    moment = [dp for dp in detect(log.events) if dp.kind != "start"]
    assert len(moment) == 1 and set(moment[0].kinds) == {"loop", "stall"}


# -- the moments a human acts ----------------------------------------------------------------------


def test_a_turn_that_ends_by_asking_is_an_agent_question_placed_on_the_question():
    log = conversation()
    log.bash("git status", "dirty")
    q = log.text("The index is corrupt.\n\nDo you want me to:\n1. reset it\n2. rebuild it\n\nWhich do you prefer?")
    log.human("2")
    (dp,) = fired(log.events, "agent_question")
    assert dp.about_seq == q["seq"] and "Which do you prefer?" in dp.evidence
    assert fired(log.events, "completion_claim") == []  # asking is not claiming to be done


def test_asking_tools_are_questions_the_moment_they_are_called():
    log = conversation()
    log.call("AskUserQuestion", {"questions": [{"question": "Which approach resonates most?"}]}, "A then B")
    (dp,) = fired(log.events, "agent_question")
    assert "Which approach resonates most?" in dp.evidence and dp.detail["rule"] == "asking_tool"


@pytest.mark.parametrize("text,pattern", [
    ("Fixed the race.\n\nWant me to commit and push?", "question"),
    ("Try it now:\n```bash\n./scripts/e2e.sh --keep\n```", "handover"),
    ("Two options.\n\n1. keep the cache\n2. drop it\n\nLet me know which.", "choice"),
    ("下一步最顺的是两种里选一种：\n1. 写 model.py\n2. 写测试脚本", "choice"),
    ("需要我帮你从数据增强模块开始搭建吗？", "question"),
    ("My recommendation: option B, because it keeps one code path.", "proposal"),
])
def test_hand_overs(text, pattern):
    got = hand_over(text)
    assert got is not None and got.pattern == pattern, (text, got)


@pytest.mark.parametrize("text", [
    "Is it the mask? Let me check the mask first.",  # a question the agent goes on to answer itself
    "Removed the duplicate comment line.",
    "The kernel now passes all 12 scenarios at 1.4x.",
])
def test_not_hand_overs(text):
    assert hand_over(text) is None


def test_an_offer_is_not_an_alarm_and_not_a_claim_either():
    log = conversation()
    log.bash("python train.py", "loss 2.98")
    log.text("Loss is 2.98 after 100 epochs. If you want, I can also plot the curve.")
    log.human("why is GPU load low?")
    assert [dp.kind for dp in detect(log.events)] == ["start"]


def test_a_turn_that_ends_asserting_something_checkable_is_a_completion_claim_in_a_conversation():
    log = conversation()
    log.bash("make bench", "ok")
    log.text("The GPU implementation is now production-ready and 30x faster than cuFFT.")
    log.human("that's crazy, verify it")
    log2 = conversation()
    log2.bash("sed -i s/a/b/ f.go", "")
    log2.text("Removed the duplicate comment line.")  # a plain report of a small requested change
    log2.human("next: the binary files")
    assert len(fired(log.events, "completion_claim")) == 1 and fired(log2.events, "completion_claim") == []


def test_a_bare_done_in_a_conversation_is_a_report_but_not_in_an_autonomous_run():
    for log, n in ((conversation(), 0), (started(), 1)):
        log.bash("make", "ok")
        log.text("Done.")
        log.stop(goal_met=False) if n else log.human("thanks")
        assert len(fired(log.events, "completion_claim")) == n


@pytest.mark.parametrize("command,rule", [
    ("git checkout -- src/kernel.cu", "revert"),
    ("cd repo && git checkout HEAD~1 -- k.cu", "revert"),
    ("git reset --hard HEAD", "revert"),
    ("git stash", "revert"),
    ("git push --force origin main", "destructive"),
    ("rm -rf src/backends", "destructive"),
    ("chmod -x .git/hooks/post-commit", "destructive"),
    ("pip install cupy-cuda12x --break-system-packages", "bypass"),
    ("git commit -am wip --no-verify", "bypass"),
])
def test_about_to_revert_destroy_or_bypass_is_a_risky_action(command, rule):
    log = started()
    log.bash(command, "")
    (dp,) = fired(log.events, "risky_action")
    assert dp.detail["rule"] == rule and dp.about_seq == log.events[-2]["seq"]  # the call, before it ran


@pytest.mark.parametrize("command", [
    "git status", "git diff HEAD~1 -- k.cu", "rm -rf build/ results/", "cd /tmp && rm -rf x",
    "git checkout -b feature", "git reflog expire --dry-run --all", "git stash list", "pip install numpy",
])
def test_ordinary_commands_are_not_risky(command):
    log = started()
    log.bash(command, "")
    assert fired(log.events, "risky_action") == []


def test_editing_what_the_human_said_not_to_touch():
    log = conversation()
    log.human("give me suggestions only, I'm learning; don't edit my files directly")
    log.call("Edit", {"file_path": "code/Dataset.py", "old_string": "a", "new_string": "b"}, "ok")
    (dp,) = fired(log.events, "risky_action")
    assert dp.detail["rule"] == "forbidden" and "Dataset.py" in dp.evidence
    log.human("ok, can you help me complete visualize_results.py?")  # permission given back
    log.call("Write", {"file_path": "code/visualize_results.py", "content": "x"}, "ok")
    assert len(fired(log.events, "risky_action")) == 1


def test_leave_the_tests_alone_protects_only_the_tests():
    log = conversation()
    log.human("fix the kernel but leave the tests alone")
    log.call("Edit", {"file_path": "src/k.cu", "old_string": "a", "new_string": "b"}, "ok")
    assert fired(log.events, "risky_action") == []
    log.call("Edit", {"file_path": "tests/test_k.py", "old_string": "a", "new_string": "b"}, "ok")
    assert [dp.detail["rule"] for dp in fired(log.events, "risky_action")] == ["forbidden"]


def test_publishing_unasked_is_risky_publishing_on_request_is_not():
    log = conversation()
    log.human("fix the flaky test")
    log.bash("git push origin fix", "ok")
    assert [dp.detail["rule"] for dp in fired(log.events, "risky_action")] == ["publish"]
    log2 = conversation()
    log2.human("commit and push please")
    log2.bash("git push origin fix", "ok")
    assert fired(log2.events, "risky_action") == []


def test_cutting_the_task_around_something_said_to_be_missing():
    log = conversation()
    log.text("It seems there's no matrix multiplication function. Let me simplify the benchmark to vector addition.")
    (dp,) = fired(log.events, "risky_action")
    assert dp.detail["rule"] == "scope_cut"
    log2 = conversation()
    log2.text("The convolution is NOT IMPLEMENTED - it's just a placeholder returning an error!")  # a finding
    assert fired(log2.events, "risky_action") == []
