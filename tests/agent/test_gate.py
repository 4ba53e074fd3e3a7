"""The stop gate: the model's word never ends a session; an evaluation does."""
from __future__ import annotations

from agent_helpers import make_runner, of_type, events, small_attention_task
from fake_anthropic import Reply, text, tool

# attention-cpu's quick scenarios at a fraction of their size, all three in the gate's quick subset
ALL_THREE = ["gqa4_d64_0", "gqa4_d128_1", "mqa_d96_decode"]

BROKEN = """#include "attention.h"
int ks_attention(const AttentionParams* p, void* stream) { (void)p; (void)stream; return 0; }
"""


def test_premature_done_is_answered_with_the_failing_facts_then_a_met_goal_ends_the_session(fake, tmp_path):
    # a copy of attention-cpu whose goal the seed itself meets, so the test does not hang on timing noise
    task = small_attention_task(tmp_path, quick=ALL_THREE, min_geomean=0.25)
    seed = (task / "seed.c").read_text()
    server = fake([
        Reply(tool("write_file", path="candidate.c", content=BROKEN)),
        Reply(text("Done. The kernel is optimal and the goal is met.")),
        lambda req: Reply(text("Restoring the correct version."),
                          tool("write_file", path="candidate.c", content=seed)),
        Reply(text("Done now.")),
    ])
    runner = make_runner(str(task), tmp_path / "s", max_turns=10)
    assert runner.run() == "goal_met"
    assert server.problems == [] and len(server.requests) == 4  # nothing after the met goal
    evs = events(tmp_path / "s")
    first, second = of_type(evs, "stop_check")
    assert first["goal_met"] is False and first["blocked"] is True
    assert any("incorrect on 3/3" in r for r in first["reasons"])
    # the failing facts reached the model as the next user turn, and the session went on
    feedback = server.requests[2].user_texts()[-1]
    assert feedback == first["feedback"]
    assert feedback.startswith("[Stop check]") and "not met" in feedback
    for name in ("gqa4_d64_0", "gqa4_d128_1", "mqa_d96_decode"):
        assert name in feedback
    assert "unwritten" in feedback
    assert second["goal_met"] is True and second["blocked"] is False
    end = of_type(evs, "session_end")[-1]
    assert end["reason"] == "goal_met" and end["summary"]["best_geomean"] is not None
    assert evs[-1] == end


def test_unmet_geomean_is_stated_against_the_goal_and_an_unchanged_file_is_not_evaluated_again(fake, tmp_path):
    server = fake([Reply(text("I think this is as fast as it gets.")), Reply(text("Really done.")),
                   Reply(tool("bash", command="true"))])
    runner = make_runner(str(small_attention_task(tmp_path, quick=ALL_THREE)), tmp_path / "s", max_turns=3)
    assert runner.run() == "max_turns"
    evs = events(tmp_path / "s")
    first, second = of_type(evs, "stop_check")
    assert len(of_type(evs, "eval_result")) == 1  # the second check reused the report
    assert not first["reused"] and second["reused"]
    assert any(r.startswith("geomean") and "< goal 2.000" in r for r in first["reasons"])
    assert "< goal 2.000" in server.requests[1].user_texts()[-1]


def test_the_steerer_raises_the_goal_with_a_control_line(fake, tmp_path):
    task = small_attention_task(tmp_path, quick=ALL_THREE, min_geomean=0.25)
    holder = {}

    def post_goal(req):
        holder["runner"].inbox.post("/goal 40\nKeep going until then.")
        return Reply(tool("bash", command="true"))

    server = fake([post_goal, Reply(text("Done.")), Reply(tool("bash", command="true"))])
    runner = make_runner(str(task), tmp_path / "s", max_turns=3)
    holder["runner"] = runner
    assert runner.run() == "max_turns"  # the seed meets 0.25, not 40
    evs = events(tmp_path / "s")
    (human,) = of_type(evs, "human_message")
    assert human["goal"]["min_geomean"] == 40.0 and human["goal_changed"] is True
    assert "The goal is now:" in server.requests[1].user_texts()[-1]
    assert "/goal" not in server.requests[1].user_texts()[-1]
    (check,) = of_type(evs, "stop_check")
    assert check["goal_met"] is False and check["goal"]["min_geomean"] == 40.0
    assert any("< goal 40.000" in r for r in check["reasons"])


def test_an_undecided_measurement_is_measured_again_and_the_second_decides(fake, tmp_path):
    # the seed meets this goal; the machine reads as contended for the first evaluation only
    task = small_attention_task(tmp_path, quick=ALL_THREE, min_geomean=0.25)
    server = fake([Reply(text("Done: the seed already meets the goal."))])
    runner = make_runner(str(task), tmp_path / "s", max_turns=3)
    runner.evals.env["KERNELSEEK_CONTENDED_SHARE"] = "-1"  # every scenario `contended`
    real_run = runner.evals.run

    def run(*args, **kwargs):
        try:
            return real_run(*args, **kwargs)
        finally:
            runner.evals.env["KERNELSEEK_CONTENDED_SHARE"] = "1.0"  # the machine quiets down
    runner.evals.run = run
    assert runner.run() == "goal_met"
    assert len(server.requests) == 1  # the model was never told anything: the gate decided
    evs = events(tmp_path / "s")
    first, second = of_type(evs, "eval_result")
    assert first["candidate_hash"] == second["candidate_hash"]
    assert first["purpose"] == "stop_check" and second["purpose"] == "remeasure"
    assert any(r.startswith("re-measure: contended") for r in first["summary"]["remeasure"])
    assert second["summary"]["remeasure"] == [] and second["summary"]["goal_met"]
    (check,) = of_type(evs, "stop_check")
    assert check["goal_met"] is True and check["measured"] == 2 and check["eval_seq"] == second["seq"]


def test_a_measurement_that_stays_undecided_tells_the_agent_why(fake, tmp_path):
    task = small_attention_task(tmp_path, quick=ALL_THREE, min_geomean=0.25)
    server = fake([Reply(text("Done.")), Reply(tool("bash", command="true"))])
    runner = make_runner(str(task), tmp_path / "s", max_turns=2)
    runner.evals.env["KERNELSEEK_CONTENDED_SHARE"] = "-1"  # contended, every time
    assert runner.run() == "max_turns"
    evs = events(tmp_path / "s")
    # (once, in a fresh clone's CI beside other load, the re-measure did not happen: say why if it recurs)
    assert [e["purpose"] for e in of_type(evs, "eval_result")] == ["stop_check", "remeasure"], \
        [(e.get("reasons"), e.get("feedback")) for e in of_type(evs, "stop_check")]
    (check,) = of_type(evs, "stop_check")
    assert check["goal_met"] is False and check["blocked"] is True and check["undecided"] is True
    assert check["measured"] == 2 and all(r.startswith("re-measure:") for r in check["reasons"])
    feedback = server.requests[1].user_texts()[-1]
    assert feedback == check["feedback"]
    assert "cannot decide whether the goal is met" in feedback and "measured 2 times" in feedback
    assert "\n- contended on gqa4_d64_0" in feedback  # each reason once, as a fact
    assert "The session continues." in feedback
