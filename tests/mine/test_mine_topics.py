"""Topics: what a question asks to be measured, whatever words it uses (questions/mine/topics.py).

The wordings here are written for these tests (not copied from the planted sets), in the ways
steerers type: profiler metric names, abbreviations, typos.
"""
from __future__ import annotations

import pytest

from questions.mine.cluster import ClusterConfig, cluster, part_scales
from questions.mine.miner import with_topics
from questions.mine.normalise import terms
from questions.mine.topics import TOPICS, topics


@pytest.mark.parametrize("text,topic", [
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared on the epilogue?", "bank_conflicts"),
    ("how many wavefronts per shared request on the ldmatrix loads", "bank_conflicts"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active for v4?", "occupancy"),
    ("lts__t_sector_hit_rate for the gemm pls", "l2_hit"),
    ("sm__pipe_tensor_op_hmma_cycles_active %", "tensor_cores"),
    ("r we even on the TCs for bf16", "tensor_cores"),
    ("any lmem traffic after the unroll?", "registers"),
    ("does __syncthreads in the k loop need to be there", "barriers"),
    ("is it mio throttle or long scoreboard", "stall_reasons"),
    ("did the sm clock drop during the long run", "clocks"),
    ("does it pass with seqlen=1023", "edge_shapes"),
    ("what's the worst |out - ref| on the failing case", "error_size"),
    ("do the atomics make the output nondeterministic", "determinism"),
    ("does it still do the full computation when the inputs are re-randomized", "work_skipped"),
    ("how many kernels get launched per call", "launch_count"),
    ("is the 1.3x against a seed time from yesterday", "stale_baseline"),
    ("does it handle a transposed view with stride != hidden", "contiguity"),
])
def test_a_measurement_is_recognised_whatever_its_words(text, topic):
    assert topic in topics(text), (text, topics(text))


@pytest.mark.parametrize("text,topic", [
    ("is it mio throttle or long scoreboard", "clocks"),  # a stall reason, not a clock
    ("does the kernel bound by memory or compute", "launch_overhead"),
    ("which precisions does the tolerance allow", "per_scenario"),
    ("how often is every input byte loaded from DRAM", "all_scenarios"),
    ("Which units sit idle? Show their utilisation side by side.", "vendor_baseline"),
])
def test_near_words_do_not_name_another_topic(text, topic):
    assert topic not in topics(text), (text, topics(text))


def test_most_text_names_no_topic_and_every_topic_is_named_once():
    assert topics("commit and push the branch") == ()
    assert topics("") == ()
    names = [name for name, _ in TOPICS]
    assert len(names) == len(set(names))


def test_topics_decide_a_fixed_share_of_the_cosine():
    # however many words each has, two askings of one measurement are at least `topic_share` alike
    cfg = ClusterConfig()
    a = with_topics(terms("any smem bank conflicts?"), "any smem bank conflicts?")
    long_text = ("on b4_h32_s2048 how many shared-mem wavefronts do the stores take compared to the ideal count, "
                 "want to know if they serialize")
    b = with_topics(terms(long_text), long_text)
    c = with_topics(terms("what is the achieved occupancy"), "what is the achieved occupancy")
    got = cluster([a, b, c], [1, 1, 1], cfg)
    assert [0, 1] in got.clusters and [2] in got.clusters
    words, tops = part_scales(4.0, 1.0, 0.75)
    assert words ** 2 * 4.0 == pytest.approx(0.25) and tops ** 2 * 1.0 == pytest.approx(0.75)
    assert part_scales(4.0, 0.0, 0.75) == (0.5, 0.0)  # no topics: the words alone
