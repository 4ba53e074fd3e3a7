"""GPU tests of the attention task: the fp32 reference kernel against float64 numpy on small
shapes of every feature, the seed correct on every scenario, and each deliberately broken
candidate failing exactly the scenarios that use its feature. Skipped cleanly without a GPU."""
from __future__ import annotations

import pytest

from attention_broken import BROKEN, TASK_DIR, feature_used
from attention_check import correctness_matrix, reference_vs_numpy
from attention_small import SMALL
from evaluator.task import load_task

pytestmark = [pytest.mark.gpu, pytest.mark.slow]


def test_reference_kernel_matches_float64_numpy_on_every_feature():
    errors = reference_vs_numpy(SMALL)
    assert set(errors) == set(SMALL)
    for name, per_output in errors.items():
        # fp32 arithmetic on exactly the inputs numpy sees: far below any bf16 effect
        assert per_output["o"]["rel_l2"] < 2e-6 and per_output["o"]["max_abs"] < 2e-5, (name, per_output)
        assert per_output["lse"]["rel_l2"] < 2e-6 and per_output["lse"]["max_abs"] < 1e-4, (name, per_output)


@pytest.fixture(scope="module")
def matrix():
    return correctness_matrix({b.name: b.path for b in BROKEN})


def test_seed_is_correct_on_every_scenario(matrix):
    failing = {n: f for n, f in matrix.seed_failures.items() if f}
    assert failing == {}


def test_broken_candidates_pass_the_constraints(matrix):
    assert all(v == [] for v in matrix.violations.values()), matrix.violations


@pytest.mark.parametrize("broken", BROKEN, ids=[b.name for b in BROKEN])
def test_each_broken_candidate_fails_exactly_the_scenarios_using_its_feature(matrix, broken):
    task = load_task(TASK_DIR)
    expected = {s.name for s in task.scenarios if feature_used(task.harness, task.harness.shape_of(s.params), broken.feature)}
    got = matrix.failing(broken.name)
    assert got == expected, {"unexpected failures": sorted(got - expected), "missed": sorted(expected - got)}
