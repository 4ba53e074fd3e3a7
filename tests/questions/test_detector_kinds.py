"""Each decision-point kind on event sequences that should fire and that should not (near misses
included): at least five of each per kind."""
from __future__ import annotations

import pytest

from qevents import Log, fired, scen, started
from questions.detectors import DetectorConfig, Detectors


def case(fn):
    """A case builds a log and returns it (or (log, config))."""
    return pytest.param(fn, id=fn.__name__)


def run_case(fn, kind):
    got = fn()
    log, config = got if isinstance(got, tuple) else (got, None)
    return fired(log.events, kind, config)


# -- start ------------------------------------------------------------------------------------------


def start_session_start():
    return started()


def start_foreign_without_session_start():
    log = Log()
    log.text("Let me look at the repository first.")
    return log


def start_first_event_is_a_tool_call():
    log = Log()
    log.bash("ls", "a b c")
    return log


def start_evidence_names_task_goal_arch():
    return started()


def start_once_over_a_long_log():
    log = started()
    for i in range(50):
        log.bash(f"echo {i}", str(i))
    return log


START_FIRE = [case(start_session_start), case(start_foreign_without_session_start),
              case(start_first_event_is_a_tool_call), case(start_evidence_names_task_goal_arch),
              case(start_once_over_a_long_log)]


def start_empty_log():
    return Log()


def start_only_decision_points():
    log = Log()
    log.add("decision_point", kind="stall", evidence="x")
    log.add("decision_point", kind="loop", evidence="y")
    return log


def start_only_deltas():
    log = Log()
    log.add("assistant_delta", block="b1", text="Let me")
    return log


def start_disabled():
    return started(), DetectorConfig(kinds=("stall", "loop"))


def start_no_second_on_resume():
    log = started()
    log.bash("make", "ok")
    log.start()  # a resumed run writes session_start again
    return log


START_NOT = [case(start_empty_log), case(start_only_decision_points), case(start_only_deltas),
             case(start_disabled)]


@pytest.mark.parametrize("fn", START_FIRE)
def test_start_fires(fn):
    got = run_case(fn, "start")
    assert len(got) == 1
    assert got[0].about_seq == 0


def test_start_evidence():
    (dp,) = fired(started().events, "start")
    assert "attention-fwd" in dp.evidence and "1.3" in dp.evidence and "sm90" in dp.evidence


@pytest.mark.parametrize("fn", START_NOT + [case(start_no_second_on_resume)])
def test_start_does_not_fire(fn):
    got = run_case(fn, "start")
    if fn is start_no_second_on_resume:
        assert len(got) == 1 and got[0].about_seq == 0  # the resume's session_start adds none
    else:
        assert got == []


# -- stall ------------------------------------------------------------------------------------------


def stall_five_flat_evals():
    log = started()
    for g in (1.10, 1.105, 1.10, 1.09, 1.104, 1.10):
        log.eval(g)
    return log


def stall_small_gains_do_not_count():
    log = started()
    g = 1.10
    log.eval(g)
    for _ in range(5):
        g *= 1.005  # half a percent each time: under the 1% bar
        log.eval(g)
    return log


def stall_failing_evals():
    log = started()
    log.eval(1.2)
    for _ in range(5):
        log.eval(None, correct=False)
    return log


def stall_tool_calls():
    log = started()
    log.eval(1.2)
    for i in range(40):
        log.call("edit_file", {"path": "k.cu", "old": f"a{i}", "new": f"b{i}"}, dt=1.0)
    return log


def stall_active_minutes():
    log = started()
    log.eval(1.2)
    for i in range(31):
        log.add("thinking", dt=60.0, text=f"step {i}")
    return log


def stall_configurable_window():
    log = started()
    for g in (1.1, 1.1, 1.1, 1.1):
        log.eval(g)
    return log, DetectorConfig(stall_evals=3)


STALL_FIRE = [case(stall_five_flat_evals), case(stall_small_gains_do_not_count), case(stall_failing_evals),
              case(stall_tool_calls), case(stall_active_minutes), case(stall_configurable_window)]


def stall_steady_gains():
    log = started()
    g = 1.0
    for _ in range(12):
        g *= 1.02
        log.eval(g)
    return log


def stall_four_flat_evals():
    log = started()
    for g in (1.1, 1.1, 1.1, 1.1, 1.1):  # the first sets the best; four without gain follow
        log.eval(g)
    return log


def stall_39_tool_calls():
    log = started()
    log.eval(1.2)
    for i in range(39):
        log.call("edit_file", {"path": "k.cu", "old": f"a{i}", "new": f"b{i}"}, dt=1.0)
    return log


def stall_idle_gap_is_not_work():
    log = started()
    log.eval(1.2)
    log.add("thinking", dt=2 * 3600.0, text="back after lunch")  # counts as 10 minutes, not 120
    log.add("thinking", dt=60.0, text="resuming")
    return log


def stall_no_evaluation_yet():
    log = started()
    for i in range(80):
        log.call("edit_file", {"path": "k.cu", "old": f"a{i}", "new": f"b{i}"}, dt=30.0)
    return log


def stall_human_message_restarts_window():
    log = started()
    log.eval(1.2)
    for _ in range(3):
        log.eval(1.2)
    log.human("Where does the time go now?")
    for _ in range(3):
        log.eval(1.2)
    return log


STALL_NOT = [case(stall_steady_gains), case(stall_four_flat_evals), case(stall_39_tool_calls),
             case(stall_idle_gap_is_not_work), case(stall_no_evaluation_yet), case(stall_human_message_restarts_window)]


@pytest.mark.parametrize("fn", STALL_FIRE)
def test_stall_fires(fn):
    got = run_case(fn, "stall")
    assert len(got) == 1
    assert "not improved" in got[0].evidence or "no correct timed evaluation" in got[0].evidence


@pytest.mark.parametrize("fn", STALL_NOT)
def test_stall_does_not_fire(fn):
    assert run_case(fn, "stall") == []


def test_a_stall_is_one_point_whose_count_grows_and_names_its_criterion():
    log = started()
    log.eval(1.2)
    for _ in range(10):
        log.eval(1.19)
    got = fired(log.events, "stall")
    assert len(got) == 1 and got[0].count == 2  # two windows without a gain: one stall that went on
    assert got[0].detail["criterion"] == "evals" and "1.2x" in got[0].evidence
    assert got[0].about_seq == log.events[6]["seq"]  # the fifth evaluation without a gain
    stream = Detectors().feed_many(log.events)
    grew = [dp for dp in stream if dp.updates]
    assert len(grew) == 1 and grew[0].updates == got[0].id and grew[0].count == 2


def test_a_gain_or_a_human_ends_a_stall_and_the_next_one_is_new():
    log = started()
    log.eval(1.2)
    for _ in range(5):
        log.eval(1.19)
    log.eval(1.5)  # progress: the stall is over
    for _ in range(5):
        log.eval(1.49)
    log.human("What does the profile say?")
    for _ in range(5):
        log.eval(1.48)
    got = fired(log.events, "stall")
    assert len(got) == 3 and all(dp.count == 1 for dp in got)


# -- loop -------------------------------------------------------------------------------------------


def loop_same_action_same_outcome():
    log = started()
    for _ in range(3):
        log.bash("make run", "make: *** No rule to make target 'run'.  Stop.")
    return log


def loop_same_build_error_with_edits_between():
    log = started()
    for line in (12, 14, 15):
        log.call("edit_file", {"path": "k.cu", "old": f"x{line}", "new": f"y{line}"})
        log.bash("nvcc -O3 -shared k.cu -o k.so", f"k.cu({line}): error: identifier \"tile\" is undefined\n1 error",
                 is_error=True)
    return log


def loop_alternating_file_contents():
    log = started()
    for content in ("A version", "B version", "A version", "B version"):
        log.call("write_file", {"path": "k.cu", "content": content})
    return log


def loop_edit_undone_and_redone():
    log = started()
    log.call("Edit", {"file_path": "k.cu", "old_string": "BLOCK 64", "new_string": "BLOCK 128"})
    log.call("Edit", {"file_path": "k.cu", "old_string": "BLOCK 128", "new_string": "BLOCK 64"})
    log.call("Edit", {"file_path": "k.cu", "old_string": "BLOCK 64", "new_string": "BLOCK 128"})
    return log


def loop_candidates_alternate():
    log = started()
    for h in ("aaa", "bbb", "aaa", "bbb"):
        log.add("eval_start", candidate_hash=h)
        log.eval(1.1, event={"candidate_hash": h})
    return log


def loop_same_runtime_error():
    log = started()
    for i in range(3):
        log.call("edit_file", {"path": "k.cu", "old": f"p{i}", "new": f"q{i}"})
        log.bash("python run.py", "CUDA error: an illegal memory access was encountered\n", is_error=True)
    return log


def loop_codex_patch_undone_and_redone():
    log = started()
    fwd = "*** Begin Patch\n*** Update File: k.cu\n-#define TILE 64\n+#define TILE 128\n*** End Patch"
    back = "*** Begin Patch\n*** Update File: k.cu\n-#define TILE 128\n+#define TILE 64\n*** End Patch"
    for patch in (fwd, back, fwd):
        log.call("apply_patch", {"input": patch}, "Success")
    return log


def loop_echo_into_a_file_then_compile():
    log = started()  # `echo` starts the command, but it writes a file and compiles: not read-only
    for _ in range(3):
        log.bash("echo 'int main(){if(!x)return 1;}' > t.c && gcc t.c", "t.c:1:16: error: stray '\\' in program")
    return log


LOOP_FIRE = [case(loop_echo_into_a_file_then_compile), case(loop_same_action_same_outcome), case(loop_same_build_error_with_edits_between),
             case(loop_alternating_file_contents), case(loop_edit_undone_and_redone), case(loop_candidates_alternate),
             case(loop_same_runtime_error), case(loop_codex_patch_undone_and_redone)]


def loop_same_command_new_numbers():
    log = started()
    for ms in ("1.23", "1.19", "1.21"):
        log.bash("python bench.py", f"median {ms} ms")
    return log


def loop_reading_the_same_file():
    log = started()
    for _ in range(4):
        log.bash("cat k.cu", "__global__ void k() {}")
        log.bash("cd /repo && cat k.cu", "__global__ void k() {}")
        log.call("Read", {"file_path": "k.cu"}, "__global__ void k() {}")
    return log


def loop_error_only_twice():
    log = started()
    for line in (12, 14):
        log.bash("nvcc k.cu", f"k.cu({line}): error: identifier \"tile\" is undefined", is_error=True)
    log.bash("nvcc k.cu", "")
    return log


def loop_different_errors():
    log = started()
    for msg in ('identifier "tile" is undefined', "expected a \";\"", 'too few arguments in function call'):
        log.bash("nvcc k.cu", f"k.cu(3): error: {msg}", is_error=True)
    return log


def loop_one_revert_is_not_alternation():
    log = started()
    for content in ("A version", "B version", "A version"):
        log.call("write_file", {"path": "k.cu", "content": content})
    return log


def loop_repeats_spread_beyond_the_window():
    log = started()
    for k in range(3):
        log.bash("make run", "make: *** No rule to make target 'run'.  Stop.")
        for i in range(6):
            log.call("edit_file", {"path": "k.cu", "old": f"o{k}{i}", "new": f"n{k}{i}"})
    return log


def loop_reading_source_that_mentions_errors():
    log = started()
    for _ in range(3):
        log.call("Read", {"file_path": "err.c"}, "const char* msg = \"error: bad input\";\ncudaError_t e;")
    return log


LOOP_NOT = [case(loop_same_command_new_numbers), case(loop_reading_the_same_file), case(loop_error_only_twice),
            case(loop_different_errors), case(loop_one_revert_is_not_alternation),
            case(loop_repeats_spread_beyond_the_window), case(loop_reading_source_that_mentions_errors)]


@pytest.mark.parametrize("fn", LOOP_FIRE)
def test_loop_fires(fn):
    got = run_case(fn, "loop")
    assert len(got) == 1, [dp.evidence for dp in got]
    assert got[0].evidence


@pytest.mark.parametrize("fn", LOOP_NOT)
def test_loop_does_not_fire(fn):
    got = run_case(fn, "loop")
    assert got == [], [dp.evidence for dp in got]


def test_loop_evidence_names_the_error_and_the_event():
    log = loop_same_build_error_with_edits_between()
    (dp,) = fired(log.events, "loop")
    assert 'identifier "tile" is undefined' in dp.evidence and "3 times" in dp.evidence
    assert dp.about_seq == log.events[-1]["seq"]


# -- limit_claim ------------------------------------------------------------------------------------

LIMIT_CLAIMS = [
    "We're now at about 90% of the memory bandwidth limit, so there's not much left.",
    "The kernel is memory-bound; we can't go any faster without reducing bytes.",
    "This is close to the theoretical peak for this GPU.",
    "We've hit the hardware limit of the tensor cores.",
    "At this point the kernel is fundamentally limited by DRAM bandwidth.",
    "Further optimization is impossible because we're saturating DRAM bandwidth.",
    "This is as fast as it gets on this hardware.",
    "There's no more headroom: the kernel is purely memory-bound.",
    "We are probably near the roofline already.",
    "I think we've exhausted the optimization opportunities for this kernel.",
    "This is about as fast as this machine allows: the kernel is bound by memory bandwidth now.",
    "The kernel is bound by memory bandwidth, so further gains would have to come from the hardware.",
]

NOT_LIMIT_CLAIMS = [
    "Are we at the memory bandwidth limit?",
    "Let me measure how close we are to peak bandwidth.",
    "We're far from the bandwidth limit, so there's room to improve.",
    "If the kernel were memory-bound, tiling would not help.",
    "API Error: Rate limit reached",
    "I set the time limit to 60 seconds.",
    "The limit parameter controls how many rows are returned.",
    "We're not yet near the theoretical peak.",
    "I'll check whether we're at the roofline before claiming anything.",
    "The loop's upper bound is n, and I fixed an out-of-bounds read.",
    "This gives a 2x speedup over the previous version.",
    "The old world simply has no more room, so the story moves the pilot elsewhere.",
    "Is this as fast as the hardware allows?",
    "Let's see whether we are bound by memory bandwidth.",
    "The agent is bound by the license terms of the repository.",
]


@pytest.mark.parametrize("sentence", LIMIT_CLAIMS)
def test_limit_claim_fires(sentence):
    log = started()
    log.text("Here is where we stand. " + sentence)
    (dp,) = fired(log.events, "limit_claim")
    assert dp.evidence.startswith(sentence[:30]) and dp.about_seq == log.events[-1]["seq"]


@pytest.mark.parametrize("sentence", NOT_LIMIT_CLAIMS)
def test_limit_claim_does_not_fire(sentence):
    log = started()
    log.text(sentence)
    assert fired(log.events, "limit_claim") == []


def test_limit_claim_is_stronger_when_the_evaluator_shows_the_kernel_well_below_peak():
    claim = "We're at the memory bandwidth limit, so no further gains are possible."
    far, near = started(), started()
    far.eval(1.2, scenarios=scen(1.2, 1.1, pct=[35, 41]))
    near.eval(1.2, scenarios=scen(1.2, 1.1, pct=[91, 93]))
    far.text(claim)
    near.text(claim)
    (f,) = fired(far.events, "limit_claim")
    (n,) = fired(near.events, "limit_claim")
    assert f.strength > n.strength
    assert "41% of measured peak" in f.evidence and "measured peak" not in n.evidence
    assert f.detail["best_pct_peak"] == 41


def test_limit_claim_not_read_in_code_tool_output_or_thinking():
    log = started()
    log.text("Here is the comment I added:\n```\n// we are at the memory bandwidth limit, can't go faster\n```\nDone editing?")
    log.bash("cat NOTES.md", "We're at the memory bandwidth limit; this is as fast as it gets.")
    log.add("thinking", text="This is as fast as it gets on this hardware.")
    assert fired(log.events, "limit_claim") == []
    assert len(fired(log.events, "limit_claim", DetectorConfig(scan_thinking=True))) == 1


def test_limit_claim_cooldown():
    log = started()
    log.text("This is as fast as it gets on this hardware.")
    log.text("We are at the hardware limit.")  # the same claim again: no second point
    for i in range(10):
        log.bash(f"ncu run{i}", f"report {i}")
    log.text("We are at the hardware limit.")  # ten tool calls later it counts again
    assert len(fired(log.events, "limit_claim")) == 2


# -- completion_claim -------------------------------------------------------------------------------

COMPLETION_CLAIMS = [
    "The optimization is complete.",
    "I'm done: the kernel now runs at 1.4x the seed on every scenario.",
    "All scenarios pass and the goal is met, so I'm done.",
    "This is the final version of the kernel.",
    "Task complete.",
    "We're all done here.",
    "I've successfully optimized the kernel to 1.45x over the seed.",
    "All done!",
    "This completes the optimization.",
    "The goal has been achieved with a geomean of 1.31x.",
]

NOT_COMPLETION_CLAIMS = [
    "Done with step 1, now let's tile the K loop.",
    "Once this is done, I'll run the benchmark.",
    "Is the build done?",
    "The build completed successfully.",
    "I'm not done yet: two scenarios still fail.",
    "Let me finish the epilogue first.",
    "The download is complete; extracting now.",
    "The first phase is complete, next I'll vectorize.",
    "We're almost done, only the masking remains.",
    "The kernel is complete, but two scenarios fail.",
    "There's uncommitted work that's complete and coherent but not yet committed.",
]


@pytest.mark.parametrize("sentence", COMPLETION_CLAIMS)
def test_completion_claim_fires(sentence):
    log = started()
    log.text(sentence)
    (dp,) = fired(log.events, "completion_claim")
    assert dp.evidence == sentence and dp.about_seq == log.events[-1]["seq"]


@pytest.mark.parametrize("sentence", NOT_COMPLETION_CLAIMS)
def test_completion_claim_does_not_fire_on_words(sentence):
    log = started()
    log.text(sentence)
    assert fired(log.events, "completion_claim") == []


def turn_end_stop_check():
    log = started()
    log.bash("make", "ok")
    log.text("The kernel now beats the seed on the large shapes.")
    log.stop(goal_met=False, reasons=["geomean 1.1 < 1.3"])
    return log


def turn_end_foreign_human_reply():
    log = started()
    log.bash("make", "ok")
    log.text("I rewrote the tiling and the benchmark shows 1.2x.")
    log.human("ok, now the small shapes")
    return log


def turn_end_session_end():
    log = started()
    log.bash("make", "ok")
    log.text("Wrote the final kernel to workspace/k.cu.")
    log.end("completed")
    return log


def turn_end_claim_and_stop_check_once():
    log = started()
    log.bash("make", "ok")
    log.text("The optimization is complete.")
    log.stop(goal_met=True)
    return log


def turn_end_every_turn():
    log = started()
    for i in range(3):
        log.bash(f"make v{i}", "ok")
        log.text(f"Version {i} is built and measured.")
        log.stop(goal_met=False)
    return log


def turn_end_stop_check_after_a_question():
    log = started()  # our runner's agent works alone: stopping to ask is stopping
    log.bash("make", "ok")
    log.text("Both variants build. Should I keep going with the second?")
    log.stop(goal_met=False)
    return log


TURN_END_FIRE = [case(turn_end_stop_check_after_a_question), case(turn_end_stop_check), case(turn_end_foreign_human_reply), case(turn_end_session_end),
                 case(turn_end_claim_and_stop_check_once), case(turn_end_every_turn)]


def turn_end_asks_the_human():
    log = started()
    log.bash("make", "ok")
    log.text("Both variants build. Which one should I keep?")
    log.human("the second")
    return log


def turn_end_offers_a_choice():
    log = started()
    log.bash("make", "ok")
    log.text("I can also remove the old kernels. Let me know if you want that.")
    log.human("yes")
    return log


def turn_end_without_work():
    log = started()
    log.text("Sure, here is how the tiling works.")
    log.human("thanks")
    return log


def turn_end_interrupted():
    log = started()
    log.bash("make", "ok")
    log.text("Now running the long benchmark.")
    log.human("[Request interrupted by user]", kind="interrupt")
    return log


def turn_boundary_with_tool_results():
    log = started()
    log.text("Let me build it.")
    log.bash("make", "ok")
    log.human("also print the register count")  # delivered with the tool results: no turn end
    return log


def turn_end_proposes_and_waits():
    log = started()
    log.bash("grep -rn slow .", "a.go:12: slow")
    log.text("I found three slow paths. I would add timing instrumentation to confirm which one matters.")
    log.human("yes, add instrumentation")
    return log


TURN_END_NOT = [case(turn_end_proposes_and_waits), case(turn_end_asks_the_human), case(turn_end_offers_a_choice), case(turn_end_without_work),
                case(turn_end_interrupted), case(turn_boundary_with_tool_results)]


@pytest.mark.parametrize("fn", TURN_END_FIRE)
def test_completion_on_turn_end(fn):
    log = fn()
    got = fired(log.events, "completion_claim")
    assert len(got) == (3 if fn is turn_end_every_turn else 1)


def test_turn_end_evidence_and_verdict():
    log = turn_end_stop_check()
    (dp,) = fired(log.events, "completion_claim")
    assert "ended its turn after 1 tool call (stop check: goal not met)" in dp.evidence
    assert "beats the seed" in dp.evidence
    assert dp.detail["goal_met"] is False and dp.strength == pytest.approx(0.6)
    assert dp.about_seq == log.events[-1]["seq"]  # the stop check
    foreign = turn_end_foreign_human_reply()
    (dp,) = fired(foreign.events, "completion_claim")
    assert dp.about_seq == foreign.events[-2]["seq"]  # the agent's last words
    assert dp.at_seq == foreign.events[-1]["seq"]


@pytest.mark.parametrize("fn", TURN_END_NOT)
def test_completion_not_on_these_turn_ends(fn):
    assert fired(fn().events, "completion_claim") == []


# -- suspicious_win ---------------------------------------------------------------------------------


def win_geomean_jump():
    log = started()
    log.eval(1.0)
    log.eval(1.35)
    return log


def win_first_eval_far_above_seed():
    log = started()
    log.eval(1.45)
    return log


def win_one_scenario_jumps():
    log = started()
    log.eval(1.1, scenarios=scen(1.1, 1.1, 1.1, 1.1))
    log.eval(1.2, scenarios=scen(1.1, 1.1, 1.1, 1.7))
    return log


def win_above_roofline_pct():
    log = started()
    log.eval(1.1, scenarios=scen(1.1, 1.1, pct=[60, 60]))
    log.eval(1.15, scenarios=scen(1.15, 1.15, pct=[62, 131]))
    return log


def win_flagged_by_evaluator():
    log = started()
    log.eval(1.1)
    log.eval(1.12, flags=["above_roofline"])
    return log


def win_inferred_from_a_transcript():
    log = started()
    log.add("eval_result", inferred=True, summary={"geomean": 22.4, "ratios": {"a": 2.46, "b": 173.0}})
    return log


WIN_FIRE = [case(win_geomean_jump), case(win_first_eval_far_above_seed), case(win_one_scenario_jumps),
            case(win_above_roofline_pct), case(win_flagged_by_evaluator), case(win_inferred_from_a_transcript)]


def win_modest_gain():
    log = started()
    log.eval(1.0)
    log.eval(1.25)
    return log


def win_incorrect_fast_kernel():
    log = started()
    log.eval(1.0)
    log.eval(3.0, correct=False)
    return log


def win_steady_climb():
    log = started()
    for g in (1.1, 1.25, 1.45, 1.7):  # each step under 1.3x
        log.eval(g)
    return log


def win_scenario_under_threshold():
    log = started()
    log.eval(1.1, scenarios=scen(1.2, 1.0))
    log.eval(1.2, scenarios=scen(1.7, 1.0))  # 1.42x on one scenario
    return log


def win_near_roofline():
    log = started()
    log.eval(1.1, scenarios=scen(1.1, pct=[98]))
    log.eval(1.12, scenarios=scen(1.12, pct=[99.5]))
    return log


def win_quick_subset_run():
    log = started()
    log.eval(1.1, total=8, scenarios=scen(1.3, 1.3, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0))
    log.eval(1.3, total=2, scenarios=scen(1.3, 1.3))  # a quick run over two scenarios
    return log


WIN_NOT = [case(win_modest_gain), case(win_incorrect_fast_kernel), case(win_steady_climb),
           case(win_scenario_under_threshold), case(win_near_roofline), case(win_quick_subset_run)]


@pytest.mark.parametrize("fn", WIN_FIRE)
def test_suspicious_win_fires(fn):
    got = run_case(fn, "suspicious_win")
    assert len(got) == 1, [dp.evidence for dp in got]


@pytest.mark.parametrize("fn", WIN_NOT)
def test_suspicious_win_does_not_fire(fn):
    got = run_case(fn, "suspicious_win")
    assert got == [], [dp.evidence for dp in got]


def test_suspicious_win_evidence():
    (dp,) = fired(win_geomean_jump().events, "suspicious_win")
    assert dp.evidence == "geomean 1x -> 1.35x (1.35x) in one step"
    (dp,) = fired(win_above_roofline_pct().events, "suspicious_win")
    assert "131% of measured peak" in dp.evidence and dp.strength >= 0.9
    (dp,) = fired(win_inferred_from_a_transcript().events, "suspicious_win")
    assert dp.strength < 0.9 and "173x" in dp.evidence


# -- correctness_break ------------------------------------------------------------------------------


def broken():
    """Correct, then failing."""
    log = started()
    log.eval(1.2)
    log.eval(None, correct=False)
    return log


def break_noise_excuse():
    log = broken()
    log.text("The mismatch is just floating-point noise from the reordered accumulation.")
    return log


def break_loosen_tolerance():
    log = broken()
    log.text("I'll loosen the tolerance to 1e-2 so the scenario passes.")
    return log


def break_edit_reference():
    log = broken()
    log.call("edit_file", {"path": "kernels/attn/reference.py", "old": "np.float32", "new": "np.float16"})
    return log


def break_edit_atol_in_a_test():
    log = broken()
    log.call("Edit", {"file_path": "tests/test_kernel.py", "old_string": "atol=1e-3", "new_string": "atol=5e-2"})
    return log


def break_unrelated_to_my_changes():
    log = broken()
    log.text("The integration test failure is unrelated to my changes (it's about the .claude directory).")
    return log


def break_flaky_claim():
    log = broken()
    log.bash("python check.py", "FAILED s0")
    log.text("These failures are due to fp16 rounding and are within acceptable precision.")
    return log


def break_tamper_without_failure():
    log = started()
    log.bash("sed -i 's/rtol=1e-3/rtol=1e-1/' kernels/attn/harness.py", "")
    return log


BREAK_FIRE = [case(break_noise_excuse), case(break_loosen_tolerance), case(break_edit_reference),
              case(break_edit_atol_in_a_test), case(break_unrelated_to_my_changes), case(break_flaky_claim),
              case(break_tamper_without_failure)]


def break_planned_fix():
    log = broken()
    log.text("The failure comes from an off-by-one in the mask; I'll fix the tail handling.")
    return log


def break_checking_precision():
    log = broken()
    log.text("Let me check whether it's a precision issue by comparing against fp64.")
    return log


def break_never_correct_before():
    log = started()
    log.eval(None, correct=False)
    log.text("The mismatch is just floating-point noise.")
    return log


def break_fixed_before_the_excuse():
    log = broken()
    log.eval(1.2)
    log.text("The mismatch earlier was just floating-point noise.")
    return log


def break_excuse_long_after():
    log = broken()
    for i in range(4):
        log.text(f"Looking at the tile loop, part {i}.")
    log.text("The mismatch is just floating-point noise.")
    return log


def break_excuse_without_failure():
    log = started()
    log.eval(1.2)
    log.text("Small differences are expected with half precision, so the check uses the seed's error.")
    return log


def break_reading_reference():
    log = broken()
    log.call("Read", {"file_path": "kernels/attn/reference.py"}, "def reference(q, k, v): ...")
    log.bash("cat kernels/attn/reference.py", "def reference(q, k, v): ...")
    return log


def break_refusing_to_loosen():
    log = broken()
    log.text("We should not loosen the tolerance; the kernel is wrong somewhere.")
    return log


def break_tamper_off_and_no_failure():
    log = started()
    log.call("edit_file", {"path": "kernels/attn/reference.py", "old": "a", "new": "b"})
    return log, DetectorConfig(break_tamper_anytime=False)


BREAK_NOT = [case(break_planned_fix), case(break_checking_precision), case(break_never_correct_before),
             case(break_fixed_before_the_excuse), case(break_excuse_long_after), case(break_excuse_without_failure),
             case(break_reading_reference), case(break_refusing_to_loosen), case(break_tamper_off_and_no_failure)]


@pytest.mark.parametrize("fn", BREAK_FIRE)
def test_correctness_break_fires(fn):
    got = run_case(fn, "correctness_break")
    assert len(got) == 1, [dp.evidence for dp in got]


@pytest.mark.parametrize("fn", BREAK_NOT)
def test_correctness_break_does_not_fire(fn):
    got = run_case(fn, "correctness_break")
    assert got == [], [dp.evidence for dp in got]


def test_correctness_break_evidence_links_the_failure():
    log = break_noise_excuse()
    (dp,) = fired(log.events, "correctness_break")
    assert dp.evidence.startswith("The mismatch is just floating-point noise")
    assert dp.detail["failure_seq"] == log.events[2]["seq"] and "3/4 scenarios correct" in dp.detail["failure"]
    (dp,) = fired(break_edit_atol_in_a_test().events, "correctness_break")
    assert "atol 1e-3 -> 5e-2" in dp.evidence


# -- regression -------------------------------------------------------------------------------------


def reg_geomean_drop():
    log = started()
    log.eval(1.3)
    log.eval(1.17)
    return log


def reg_exactly_five_percent():
    log = started()
    log.eval(1.0)
    log.eval(0.95)
    return log


def reg_one_scenario_drops():
    log = started()
    log.eval(1.2, scenarios=scen(1.2, 1.2, 1.2, 1.2))
    log.eval(1.2, scenarios=scen(1.5, 1.3, 1.2, 0.9))
    return log


def reg_inferred():
    log = started()
    log.add("eval_result", inferred=True, summary={"geomean": 2.0})
    log.add("eval_result", inferred=True, summary={"geomean": 1.6})
    return log


def reg_after_failing_run_compares_with_last_correct():
    log = started()
    log.eval(1.3)
    log.eval(None, correct=False)
    log.eval(1.1)
    return log


REG_FIRE = [case(reg_geomean_drop), case(reg_exactly_five_percent), case(reg_one_scenario_drops), case(reg_inferred),
            case(reg_after_failing_run_compares_with_last_correct)]


def reg_small_drop():
    log = started()
    log.eval(1.3)
    log.eval(1.25)
    return log


def reg_failing_run_is_not_slower():
    log = started()
    log.eval(1.3)
    log.eval(0.4, correct=False)
    return log


def reg_first_eval():
    log = started()
    log.eval(0.7)
    return log


def reg_subset_run():
    log = started()
    log.eval(1.3, total=8, scenarios=scen(1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3))
    log.eval(1.0, total=2, scenarios=scen(1.3, 1.3))
    return log


def reg_scenario_small_drop():
    log = started()
    log.eval(1.2, scenarios=scen(1.2, 1.2))
    log.eval(1.2, scenarios=scen(1.02, 1.4))  # -15% on one: under the 20% bar
    return log


def reg_improvement():
    log = started()
    log.eval(1.1)
    log.eval(1.2)
    return log


def reg_same_source_measured_again():
    log = started()
    log.eval(1.7, scenarios=scen(2.2, 1.3), event={"candidate_hash": "aaa"})
    log.eval(1.5, scenarios=scen(1.6, 1.4), event={"candidate_hash": "aaa"})  # noise, not a change
    return log


def reg_after_an_edit():
    log = started()
    log.eval(1.7, scenarios=scen(2.2, 1.3), event={"candidate_hash": "aaa"})
    log.eval(1.5, scenarios=scen(1.6, 1.4), event={"candidate_hash": "bbb"})
    return log


REG_NOT = [case(reg_small_drop), case(reg_failing_run_is_not_slower), case(reg_first_eval), case(reg_subset_run),
           case(reg_scenario_small_drop), case(reg_improvement), case(reg_same_source_measured_again)]


def test_the_same_drop_after_an_edit_is_a_regression():
    assert len(fired(reg_after_an_edit().events, "regression")) == 1


def test_a_jump_measuring_the_same_source_again_is_no_win():
    log = started()
    log.eval(1.0, scenarios=scen(1.0, 1.0), event={"candidate_hash": "aaa"})
    log.eval(1.4, scenarios=scen(1.6, 1.3), event={"candidate_hash": "aaa"})
    assert fired(log.events, "suspicious_win") == []
    log.eval(2.0, scenarios=scen(2.2, 1.9), event={"candidate_hash": "bbb"})
    assert len(fired(log.events, "suspicious_win")) == 1


@pytest.mark.parametrize("fn", REG_FIRE)
def test_regression_fires(fn):
    got = run_case(fn, "regression")
    assert len(got) == 1, [dp.evidence for dp in got]


@pytest.mark.parametrize("fn", REG_NOT)
def test_regression_does_not_fire(fn):
    got = run_case(fn, "regression")
    assert got == [], [dp.evidence for dp in got]


def test_regression_evidence():
    (dp,) = fired(reg_geomean_drop().events, "regression")
    assert dp.evidence == "geomean 1.3x -> 1.17x (-10.0%) since the previous correct evaluation"
    (dp,) = fired(reg_one_scenario_drops().events, "regression")
    assert dp.evidence.startswith("scenario s3 1.2x -> 0.9x (-25%)")


def test_every_kind_can_be_switched_off():
    log = broken()
    log.text("The mismatch is just floating-point noise. This is as fast as it gets on this hardware.")
    everything = {dp.kind for dp in fired(log.events, "correctness_break")} | {
        dp.kind for dp in fired(log.events, "limit_claim")}
    assert everything == {"correctness_break", "limit_claim"}
    assert fired(log.events, "limit_claim", DetectorConfig(kinds=("correctness_break",))) == []
