"""Telling questions from directives and from messages that supply information.

The hand-labelled messages here are written apart from the synthetic corpus's templates, in
the ways steerers type: short, lower case, with fillers, half sentences, questions that carry
their own answer. The rule that matters most: a message that hands the agent information is
never proposed as a question.
"""
from __future__ import annotations

import pytest

from mine_corpus import INFORMATION, generate
from questions.mine.asking import is_interrogative, sentences
from questions.mine.classify import classify

QUESTIONS = [
    "Is that win noise? Run it again and show me the spread.",
    "What do you mean there's no matrix multiplication function?",
    "why is s3 slower than the others",
    "Where does the seed spend its time?",
    "Is the limit a property of the hardware or of your design?",
    "Does the kernel use wgmma or mma.sync? Check the SASS.",
    "Does the working set fit in L2?",
    "We're at 45% of peak. Why?",
    "Why does the 4096 scenario take 3 ms?",
    "That jump looks too good. Is it real?",
    "how many registers per thread does it use",
    "Is it memory bound or compute bound? Show me the numbers.",
    "what changed between v3 and v4?",
    "can you check whether the loads are coalesced?",
    "ok so what's the occupancy on the big case",
    "hm, are all the SMs busy during the last wave?",
    "Which scenario is furthest from the roofline?",
    "How do you know it's done?",
    "is the reference itself right for odd sizes",
    "Why did you change the tolerance?",
    "what would the profiler say about the epilogue",
    "How long does the empty launch take on this box?",
    "explain why the small shapes lose",
    "Do the tests cover the 1-element case?",
    "Are we timing the same thing as the baseline?",
    "- the hooks run slowly in some cases; can we figure out why?",
    "Could this be measurement noise? Show the variance over 10 runs.",
    "wait why is the baseline at 0.9x of itself",
    "What does ncu say the bottleneck is?",
    "any idea why the first run is always slower?",
    "Did you try running it twice?",
    "Have you profiled it?",
    "Why not?",
    "Why is the 50 MB case slower?",
    "Does the cache help here?",
    "Is that right?",
    "Are there bank conflicts?",
    # as steerers type: a value asked for with a question mark or a "pls"
    "l2 hit % for rmsnorm_fwd at 8192x4096 ?",
    "achieved occupancy from ncu for softmax_fwd pls",
    "run it twice and diff the outputs, identical?",
    "r u still getting conflicts in smem after the swizzle change",
]

INFORMATION_MESSAGES = [
    "The L2 on the H200 is 50 MB so tile for that",
    "use wgmma",
    "the bug is in line 40",
    "The L2 is 50 MB; does your tile fit?",
    "Why not use TMA for the loads?",
    "Have you tried a 128x256 tile?",
    "How close to the 3.35 TB/s peak are we?",
    "isn't it memory bound?",
    "H100 has 132 SMs, so launch 132 blocks",
    "It's memory bound, look at the DRAM throughput.",
    "There's a bank conflict in the epilogue.",
    "Why don't you store the K tile in shared memory?",
    "What about using shared memory for the tile?",
    "the slowdown is because of the atomics in the reduction",
    "you're latency bound on the small shapes",
    "Hopper has TMA, the loads shouldn't be done by threads",
    "the problem is the __syncthreads inside the loop",
    "try vectorized float4 loads",
    "shouldn't you be using tensor cores for this?",
    "it's probably due to register spills",
    "set the number of stages to 4",
    "see https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/ section 9.2",
    "no, the seed already uses cp.async",
    "actually the reference transposes K first",
    "Each SM has 228 KB of shared memory on the H100, so three blocks fit.",
    "The peak is 989 TFLOP/s for bf16 dense; you're at a third of that.",
    "Could you use warp shuffles for the reduction instead?",
    "Did you consider split-k for the skinny shapes?",
    "look at kernel.cu:212, the index is off by one",
    "```\n__global__ void k(float* x) { x[threadIdx.x] = 0; }\n```",
    "maybe the tiles are too big for the register file?",
    "Unroll the inner loop by 4.",
    "Would it help to pad the smem rows?",
    "Could double buffering help?",
    "would a bigger tile help",
    "The tolerance is 1e-2, right?",
    "What if you use a persistent kernel?",
    "Isn't the L2 on the H100 only 50 MB?",
    "Doesn't Hopper support fp8?",
    "fyi the GPU is shared with another job",
    "isn't the long-scoreboard stall just because you only have 2 pipeline stages? go to 4",
    "maybe worth making sure the mask uses the (sk - sq) offset for the diagonal?",
]

DIRECTIVES = [
    "commit and push", "run the tests", "Rerun the full evaluation.", "continue", "push", "create a pr",
    "update STATUS.md with what you found", "revert that change", "Profile it with ncu.",
    "can you update the readme?", "please clean up the workspace", "keep going", "go ahead and merge it",
    "Show me the SASS.", "Delete the old candidates and rebuild.", "yeah we can commit and merge it",
]

OTHER = ["yes", "ok", "okay sure.", "Option A for sure", "A then B", "thanks", "sure", "nope"]


@pytest.mark.parametrize("text", INFORMATION_MESSAGES)
def test_information_is_never_a_question(text):
    c = classify(text)
    assert c.label == "information", (text, c)
    assert c.reasons and c.question_part == ""


@pytest.mark.parametrize("text", QUESTIONS)
def test_questions_are_questions(text):
    c = classify(text)
    assert c.label == "question", (text, c)
    assert c.question_part


@pytest.mark.parametrize("text", DIRECTIVES)
def test_directives_are_not_questions(text):
    assert classify(text).label == "directive", text


@pytest.mark.parametrize("text", OTHER)
def test_acknowledgements_and_choices(text):
    assert classify(text).label == "other", text


def test_answers_to_the_agents_own_question_are_choices_not_questions():
    assert classify("Fix task configs", via="ask_user_question").label == "other"
    assert classify("Which one is faster?", via="ask_user_question").label == "other"


def test_reasons_say_why_a_message_carries_information():
    assert "hardware number" in classify("The L2 is 50 MB; does your tile fit?").reasons
    assert "suggests a solution" in classify("Why not use TMA for the loads?").reasons
    assert "points at the place" in classify("the bug is in line 40").reasons
    assert "gives the answer or cause" in classify("it's memory bound").reasons
    assert "gives a reference (URL)" in classify("see https://example.com/x").reasons


def test_a_question_wrapped_in_paragraphs_of_context_hands_over_that_context():
    text = ("So the way the old harness worked was that it timed every scenario three times and kept the "
            "median, and the flush was done with a memset of twice the L2 before every call, which is what "
            "the evaluator does now too. Does that match what you see?")
    assert classify(text).label == "information"


def test_the_question_part_keeps_the_question_and_the_requests_after_it():
    c = classify("ok that looks odd. Is that 1.3x win noise? Run it again and show me the spread. Then commit.")
    assert c.question_part == "Is that 1.3x win noise? Run it again and show me the spread."
    c = classify("the hooks run slowly in some cases; can we figure out why?")
    assert c.question_part.startswith("the hooks run slowly")  # "can we figure out why?" alone says nothing
    assert classify("Check ptxas -v: any spills?").question_part == "Check ptxas -v: any spills?"


def test_clauses_are_not_questions():
    for s in ("when you're done with the story the title should stay", "which most people don't read",
              "what i wanted to change was the title", "how the folder structure works is unclear to me",
              "might be in the architecture doc"):
        assert not is_interrogative(s), s
    for s in ("what haven't we measured yet", "which flags does the build use", "how many waves are there",
              "do loads and math overlap", "why is this bad"):
        assert is_interrogative(s), s


def test_sentences_split_where_people_split_them():
    assert sentences("is this real..or noise? show me. e.g. the spread") == ["is this real", "or noise?", "show me.",
                                                                            "e.g. the spread"]


def test_no_planted_information_is_proposed_and_few_questions_are_lost():
    """Over the synthetic corpus: precision of `question` is 1.0 with respect to information."""
    corpus = generate(seed=11, n_messages=2000, n_sessions=50)
    confusion: dict[tuple[str, str], int] = {}
    for m in corpus.messages:
        got = classify(m.text).label
        confusion[(m.label, got)] = confusion.get((m.label, got), 0) + 1
    proposed = sum(n for (truth, got), n in confusion.items() if got == "question")
    info_proposed = confusion.get(("information", "question"), 0)
    planted_q = sum(n for (truth, _), n in confusion.items() if truth == "question")
    found_q = confusion.get(("question", "question"), 0)
    print(f"\nclassification on the synthetic corpus: {confusion}")
    print(f"question precision {found_q / proposed:.3f}, recall {found_q / planted_q:.3f}; "
          f"information proposed as questions: {info_proposed}")
    assert info_proposed == 0
    assert found_q / proposed >= 0.98
    assert found_q / planted_q >= 0.95


def test_every_information_template_is_information_with_any_filling():
    corpus = generate(seed=3, n_messages=3000, n_sessions=30, question_share=0.0, information_share=1.0)
    texts = {m.text for m in corpus.messages}
    assert len(texts) > len(INFORMATION)
    wrong = [t for t in texts if classify(t).label == "question"]
    assert not wrong


# -- held out --------------------------------------------------------------------------------------
# Two sets written after the rules above, each classified once before any rule was changed for it
# (docs/mining.md gives those first-run figures: set 1, 3 of 20 information messages came out as
# questions; set 2, written after set 1's misses were fixed, 1 of 20). Both now pass; they stay
# as regression cases.

HELD_OUT_QUESTIONS = [
    "What's the achieved occupancy on the biggest shape?",
    'Why did the geomean drop after you switched the loop order?',
    'how do you know the output is right for batch 1?',
    'is the timing stable across runs',
    'What fraction of the time is spent in the softmax?',
    'Which of the scenarios gets worse with the new tiling?',
    'Are the stores to global memory vectorized?',
    'What happens to the error if you double the sequence length?',
    "so where's the remaining 30% going?",
    'Does nsys show gaps between the launches?',
    'Is the compiler unrolling that loop?',
    'what is limiting you now',
    'Did the last change actually make anything faster?',
    'How many bytes per FLOP does the largest case need?',
    'Why are there two kernels in the profile instead of one?',
    'Is the reference computed in fp32 or fp64?',
    'can you tell me which scenario regressed?',
    "What evidence do you have that it's compute bound?",
    'How big is the gap to cuBLAS on the square shapes?',
    'Is the speedup the same on every scenario?',
    'How long does one iteration of the main loop take?',
    'Why is the first scenario twice as slow as the second?',
    'what does the roofline say for the 2048 case',
    'Is every block doing the same amount of work?',
    'Where do the extra 40 us come from?',
    'How do the numbers change if you flush the cache?',
    'Did the register count go up with the last change?',
    'Is the output bitwise identical to the seed?',
    'Which kernel in the profile takes longest?',
    'how often does the slow path get taken',
    "What's the arithmetic intensity of the largest scenario?",
    'Are you sure the tolerance check runs on every scenario?',
    'What did ncu report for memory throughput?',
    'is the win the same with a different seed?',
    'Why does the error grow with the sequence length?',
    "What's the warp execution efficiency in the reduction?",
    'How much of the gap is launch overhead?',
    'Do all threads in a warp take the same branch?',
    'Is the baseline using the tensor cores too?',
    'what limits the small shapes',
]

HELD_OUT_INFORMATION = [
    'The A100 has 40 MB of L2, not 50.',
    'Just precompute the exponentials once per row.',
    "the reason it's slow is the modulo in the index calculation",
    "You're reading K twice; cache it in registers.",
    'Why not launch one block per row instead?',
    'Have you thought about using ldmatrix for the fragments?',
    "it's definitely the atomics, I've seen this before",
    'Batch the small scenarios into one launch.',
    'what if you transposed V before the loop?',
    'The tolerance allows bf16, so use it.',
    'HBM3 on this card does about 3.3 TB/s',
    'The spill comes from the 64-element array on line 88.',
    "Isn't the bottleneck the shared memory bandwidth?",
    'Move the normalisation out of the inner loop.',
    "That's the expected result, flash attention gets the same.",
    "Wouldn't a warp per row be faster here?",
    'try 8 warps per block',
    'The seed uses a naive three-pass softmax; a one-pass online softmax is what you want.',
    'FYI nvcc 12.4 miscompiles that pattern, upgrade to 12.6.',
    "why don't you fuse the bias add into the epilogue",
    'The H200 has 4.8 TB/s of HBM bandwidth.',
    'Split the reduction across two warps.',
    'Why not just read the whole row into registers?',
    "You've got an uncoalesced store in the epilogue.",
    'Have you considered a persistent kernel here?',
    "that's because the grid is too small to fill the GPU",
    'Use __launch_bounds__(256, 2).',
    "Isn't it latency bound on the small inputs?",
    'Try a 64x64 tile on the small cases.',
    'Would double-buffering the loads be faster?',
    'The reference is computed in fp64, not fp32.',
    'How about cp.async for the K and V tiles?',
    "It's the bank conflicts on the transpose, stride 33 fixes it.",
    'the slowdown comes from the extra __syncthreads()',
    'drop the second pass, an online softmax does it in one',
    'L2 is 50 MB on H100 so both operands fit',
    "Why don't you make the tile 128 wide?",
    "maybe it's the integer division in the index math?",
    'The error is in the masking, line 57 uses <= instead of <.',
    'Could you try swizzling the shared memory layout?',
]

HELD_OUT_DIRECTIVES = [
    'rerun it on the full set',
    'stop and write down what you learned',
    'go back to the version from an hour ago',
    'benchmark it again',
    'make a branch for this',
    'Print the SASS for the inner loop.',
    'now clean up the notes',
    'please run ncu on the biggest scenario',
    'Run the whole suite again.',
    'write that down in the notes',
    'revert to the previous candidate',
    # ('Profile the biggest scenario with ncu and show me the summary.' was here; two planted sets' blind
    # writers ask for a profile's report this way: it is a question now, MEASUREMENT_ORDERS_ROUND12)
    'push your branch',
    'go on',
    'rebuild with -lineinfo',
    'clean up the debug prints',
]


@pytest.mark.parametrize("text", HELD_OUT_INFORMATION)
def test_held_out_information(text):
    assert classify(text).label == "information", (text, classify(text))


@pytest.mark.parametrize("text", HELD_OUT_QUESTIONS)
def test_held_out_questions(text):
    assert classify(text).label == "question", (text, classify(text))


@pytest.mark.parametrize("text", HELD_OUT_DIRECTIVES)
def test_held_out_directives(text):
    assert classify(text).label == "directive", (text, classify(text))


# An order to measure is the asking when the message asks nothing else and it names what is measured,
# or asks for a comparison or a report; an order naming only a tool, an artifact or a run, or one that
# changes something, is a directive.
MEASUREMENT_ORDERS = [
    "pls dump the resource usage from nvcc --resource-usage, i suspect lmem traffic",
    "show me the per-scenario speedups, sorted, worst first",
    "run attn_bwd twice with the same seed and diff the outputs pls",
    "before claiming we're at the limit: time FlashAttention-3 on b2_h16_s4096 for comparison",
    "check clocks/power draw during the benchmark loop pls - the numbers drop after a few seconds",
    "pls rerun the whole evaluator on HEAD and confirm all scenarios pass",
    "can you break down which phase dominates in attn bwd, the dS computation or the dQ accumulation?",
    "can u confirm the mma path is taken at runtime and not the scalar fallback for hdim 96",
    "count the bank conflicts in the transpose stage",
    "measure achieved occupancy on the largest shape",
    "pls build with -Xptxas -v and paste the register + spill lines",
    "pls repeat the measurement, I want min/median/max over ~10 runs before we keep this change",
    "validate vs reference on every input config rn and paste the worst diff",
    "break the 1.34x down by input config",
    "ncu --set full on the topk kernel, paste the warp state stats section",
    "git diff against the commit where correctness was still green pls",
    "pls look for cudaMalloc / cudaMemset in the API trace during the benchmark loop",
    "run the unmodified starting kernel again so we compare apples to apples",
    "you say it's done -- run the official evaluator end to end and paste the final output",
    "pull the launch stats + occ numbers for softmax at 4096x32000",
    "for the fp8 kernel show me the mma ops in the disassembly",
    "pls grab an nsys trace and look at the gaps between launches",
    "try seqlen 1000 instead of 1024 and run the check",
    "run correctness on shapes that arent tile aligned",
    "run compute-sanitizer on it",
    "cross-check the 41us with an external profiler",
    "A/B the prefetch change on its own pls",
    "compute flops/time for attn fwd at hdim 128 and show it",
    "can u diff the current kernel vs the one that was still correct",
    "before calling it finished, show the complete eval log",
    "log gridDim/blockDim for each scenario",
    "git stash, rebuild, rerun -- i want the number without the last patch",
    "how close are the outputs numerically? give me the worst-case deviation from the reference, bf16 and fp16 both",
    "table: case | seed us | yours us | ratio. all of them",
    "A/B it: with vs without the last commit",
    "ablate: turn off the double buffering and measure",
    "disable that opt by itself and report the timing so we know it's pulling its weight",
    "try seqlen=1 and seqlen=1000 pls",
    "prove it. achieved vs peak pls",
    "give me the speedup for each shape separately, not just the geomean",
]
ORDERS_THAT_ARE_DIRECTIVES = [
    "Profile it with ncu.", "Show me the SASS of rmsnorm.cu.", "benchmark it again", "Rerun the full evaluation.",
    "profile it with ncu and save the report", "run the tests", "check the logs",
    "measure it and then update the tile size to 128", "time it and commit",
    "dump the logs",
    "Do a search on 0.43 and count the \"?\" symbols. Then fix all of them please.",
    "report medians over 100 runs from here on, not best-of-10",
    "log a linear improvement for it", "run the tests on it", "disable the old path and commit",
    "remove the debug prints and rebuild",
    "Can you check the numbers on the latest commit again, just in case?",
]


@pytest.mark.parametrize("text", MEASUREMENT_ORDERS)
def test_an_order_to_measure_a_named_thing_is_a_question(text):
    assert classify(text).label == "question", (text, classify(text))


@pytest.mark.parametrize("text", ORDERS_THAT_ARE_DIRECTIVES)
def test_an_order_naming_only_a_tool_a_run_or_a_change_is_a_directive(text):
    assert classify(text).label == "directive", (text, classify(text))


def test_an_order_to_measure_after_a_question_is_not_a_second_question():
    c = classify("Is the win noise? Show me the spread.")
    assert c.label == "question" and c.question_part.startswith("Is the win noise?")


QUESTIONS_AS_TYPED = [
    "for the moe scenarios whats the total tile count you launch and how does it divide across the sms",
    "ncu says what for l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum vs requests in the rope kernel",
    "u sure its on the hopper tensor core path? look at the sass",
]
FACTS_AND_TECHNIQUES_AS_QUESTIONS = [
    "did you know ncu serializes kernels and flushes caches between replays, so its durations differ?",
    "fyi the evaluator flushes L2 between reps?",
    "can't ldmatrix.x4.trans do that transpose for free?",
    "isn't rsqrtf good enough here instead of 1.0f/sqrtf?",
    "wouldn't a persistent kernel hide the launch gaps?",
    "did u realise the eval has a bf16 case with seq_len 1? that's where the last attempt blew up",
    "try vectorizing the loads with float4 and tell me the time",
    "why are you computing the row max in fp16? do it in fp32, that's your tolerance failure",
    "have you thought about warp specialization, producer/consumer warpgroups? that's what FA3 does on hopper",
    "wouldn't a radix sort beat the bitonic one for 1M keys?",
]
SETTINGS_THAT_ARE_NOT_QUESTIONS = [
    "For manual-commit we know what the agents wrote out of the shadow commits.",
    "in /repo/git-ai is an open source repo that does attribution via git notes",
]


@pytest.mark.parametrize("text", QUESTIONS_AS_TYPED)
def test_questions_as_steerers_type_them(text):
    assert classify(text).label == "question", (text, classify(text))


@pytest.mark.parametrize("text", FACTS_AND_TECHNIQUES_AS_QUESTIONS)
def test_a_fact_or_a_technique_asked_as_a_question_is_information(text):
    assert classify(text).label == "information", (text, classify(text))


@pytest.mark.parametrize("text", SETTINGS_THAT_ARE_NOT_QUESTIONS)
def test_a_setting_before_a_clause_is_not_a_question(text):
    assert classify(text).label != "question", (text, classify(text))


# Written as an adversary of the order rules: idioms and changes that use a measuring or looking verb.
ORDERS_THAT_ONLY_LOOK_LIKE_MEASUREMENTS = [
    "get rid of the bank conflicts", "check in the changes for the occupancy fix",
    "log the occupancy fix in the changelog", "get the spill count down to zero", "compute the softmax in fp32",
    "count on the L2 to hold the tile", "compare notes with the other branch", "table the bank conflict work for now",
    "show the users the occupancy in the dashboard", "repeat after me: the seed is the baseline",
    "pull the latest main and rebuild", "feed the new kernel into the evaluator",
]


@pytest.mark.parametrize("text", ORDERS_THAT_ONLY_LOOK_LIKE_MEASUREMENTS)
def test_an_idiom_or_a_change_with_a_measuring_verb_is_not_a_question(text):
    assert classify(text).label != "question", (text, classify(text))


# Round 9 (tuned on sets Y-AB): orders to measure that name a tool as their verb, a comparison, a doubt
# about a result, or inputs thrown at the kernel ...
MEASUREMENT_ORDERS_ROUND9 = [
    "cuobjdump -sass the fp8 gemm and grep for the warpgroup mma instructions",
    "dump sass for grouped_gemm_kernel and confirm which MMA instruction it ended up with",
    "rerun the bench 5 times and post min/median/max",
    "run it again, i dont trust a single sample for a 2% win",
    "rerun the complete suite, not only the one shape u were tuning",
    "put the vendor lib number next to yours",
    "get the warp state stats section for the scan kernel",
    "profile with --section WarpStateStats and tell me the dominant one",
    "stress it with inf/nan/extreme values and compare against the reference",
    "your 1.4x is vs the seed number from the old log, measure the seed again back to back with yours",
    "bench original vs new in one script, same process, alternating",
    "pls rerun the reference impl timing before claiming the speedup",
    "validate there are no OOB reads/writes in the stencil halo, use the sanitizer",
    "you say correctness passes, but the eval shapes are all powers of 2. run some odd dims through it",
    "pls throw a non-multiple-of-16 hidden size at the rmsnorm and compare to torch",
    "could the win be noise?",
]
# ... and, written before those rules as their adversary, orders that only look like them: a change
# with "get", a rerun for another reason than doubting a result, a report posted somewhere else, a
# measuring tool used to fix things, inputs run through something that is not the kernel.
ORDERS_THAT_ONLY_LOOK_LIKE_ROUND9 = [
    "get the occupancy up to 50%", "get the tests passing again", "rerun the full benchmark before merging",
    "rerun the job, i don't trust the cluster's scheduler", "rerun the bench and post the numbers in slack",
    "use the sanitizer and fix what it finds", "put the new kernel next to the old one in kernels/",
    "run the new shapes through the formatter", "get the latest numbers into the README",
    "bench it, commit it, move on",
]
FACTS_AND_TECHNIQUES_ROUND9 = [
    "shouldn't you be targeting sm_90a? wgmma doesn't exist on plain sm_90",
    "doesn't the cudaMemsetAsync on the workspace cost you a launch every call? allocate once and zero it in-kernel",
    "could the slowdown be the 64-bit index math? int32 offsets are fine when numel < 2^31",
    "could the mismatch be fp16 accumulation? switch the accumulator to fp32",
    "wouldn't sorting the indices first make the scatter much more cache friendly?",
]





# Round 10 (tuned on sets AC-AF): leading questions that hand over a cause or a fix ...
FACTS_AND_TECHNIQUES_ROUND10 = [
    "isn't softmax_fwd reading the row twice? online softmax keeps a running max and rescales the sum so it's one pass over gmem",
    "ncu locks clocks to base by default (--clock-control base) so its durations look slower than your bench, don't compare them directly",
    "wouldnt split-k help for the M=16 decode gemm? otherwise you only get like 8 CTAs on a 132 SM chip",
    "isnt the 255 reg ceiling the whole reason it spills? setmaxnreg lets the consumer warpgroups grab 240 while the producer drops to 40",
    "isnt the masked row thing fixed by treating m=-inf as 0 before the exp? thats what fa2 does iirc",
    "wouldnt stream-k fix the tail wave on those awkward N values?",
    "you know fp32 atomicAdd isnt associative, right? any split reduction through atomics will give different bits run to run",
    "isnt that gap just python overhead from the autograd wrapper? a cuda graph or torch.compile would fold it away",
]
# ... and, written first as their adversary, askings those rules must leave alone.
QUESTIONS_THAT_LOOK_LEADING = [
    "you know what the achieved occupancy is for attn_fwd?", "doesn't it fail on N=1? try it",
    "ncu --set full the gemm, whats the achieved occupancy", "nsys stats on the trace pls, how many launches per step",
    "is that win noise?",
]




# Round 10, askings AC-AF's writers meant that the classifier lost ...
MEASUREMENT_ORDERS_ROUND10 = [
    "compile moe_grouped_gemm with -Xptxas -v and tell me the register count and spill stores/loads for the 128x256 config",
    "% of peak bw?",
    "show me the roofline point for the kernel: achieved FLOP/s and arithmetic intensity vs the sm_90 peaks",
    "rerun it 10x and print each time, i want to see the noise",
    "sweep batch from 1 to 256 for the decode gemm and print speedup vs baseline at each",
    "go dump the -Xptxas -v output for the new build and paste the lines for the attn fwd + bwd",
    "run ncu on the transpose stage and pull l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum plus the _op_st one",
    "redo the bench with a cache clear before every iteration and show me both numbers side by side",
    "odd seqlens ok?", "big tensors ok?",
    "benchmark torch._scaled_mm on the exact same shapes and put it in a table next to ours",
    "what about fully masked rows?",
    "loop the failing test like 50 times and give me the failure count",
    "sweep N from 3840 to 4608 in steps of 64 and plot time vs N",
    "generate a zipf routing distribution and a uniform one and bench the grouped gemm on each",
]
# ... and, written first as the adversary of those rules, messages that only look like them.
NOT_QUESTIONS_ROUND10 = [
    "each time you change the kernel, rerun the suite", "go ahead and commit", "sweep the stale branches and delete them",
    "what about using TMA for the K tile?", "what about a 128x256 tile?", "that ok?", "loop in the team when it's done",
    "generate the docs and show me", "try vectorizing the loads with float4 and tell me the time",
]


# Round 11 (tuned on AG-AJ's lost askings) ...
MEASUREMENT_ORDERS_ROUND11 = [
    "log nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu every 100ms while the bench runs",
    "you say it's on hopper tensor cores, but that throughput is about what i'd expect from ampere-style mma. prove it from the disassembly",
    "go calc grid size vs SM count for every shape in the sweep and flag the ones where the final partial round is under 50% full",
    "profile memory workload analysis on the scatter kernel and show sectors/request for both global ld and st",
    "if you run the all-reduce-free row reduction over 8M fp32 elements 100 times on the same input, do you get bit-identical outputs every time, or does atomicAdd ordering leak through?",
    "you report the dequant at 7 TB/s, which is above what it can do - isn't that just L2 serving it warm? redo it cold",
    "can you confirm the .so we load actually contains an sm_90a cubin and the driver isn't JIT-ing PTX from an sm_80 target at load",
    "launch overhead?",
    "u said 128x256 w/ 4 stages is best but did autotune actually pick that or is that just what you think it picked?",
    "can u run ncu on the layernorm kernel and grab dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "try an all-padding sequence thru the varlen attn, do nans leak out of the lse?",
    "atol=1e-1 feels really loose, r u sure the bf16 result is actually close or did you just bump tolerance till it passed?",
    "i dont buy that launch overhead is negligible here, the kernels are like 5us each - show me the timeline",
    "sweep seqlen 512, 1k, 2k, 4k, 8k, 16k for the causal attention fwd, headdim 128, 32 heads, bf16, and report TFLOPs at each point so we can see where it falls off",
    "make a quick table of ms and GB/s for the softmax kernel over rows 1..65536 (powers of 2) at cols=32000",
    "checkout the layernorm kernel from the commit before the vectorized-load change and bench both on [16384, 4096] fp16 so we know if the 'optimization' actually helped",
    "before we call the segmented-scan kernel done, run the whole pytest file for it - all dtypes (fp16, bf16, fp32), all the parametrized shapes - and show me the pass/fail summary line",
    "run pytest -x -q tests/test_kernels.py and paste the tail",
    "test the cumsum kernel with 2.2 billion elements (int8 is fine to keep mem down) and verify the last value",
    "for the transpose step in the cuda bitonic sort, get l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum and the st equivalent from ncu",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND11 = [
    "make a table of contents for the docs", "checkout main and rebuild", "run the tests and fix what fails",
    "run pytest and commit", "push it?", "i dont buy that, rewrite it with wgmma", "log the fix in the changelog",
    "shouldn't the autotune key include the seqlen? right now it caches whatever config it picked for the first shape it sees",
    "get the occupancy up (keep the tile at 128) and commit", "check out main and pull the latest",
    "hmm, we made a change recently where we replaced go-git with git status, could this be related?",
]


# Round 12 (tuned on AK-AN's lost askings). A profile run and its report shown is a measurement asked
# for: two blind writers (AD, AL) asked so ("nsys profile it and send the timeline"), and this list
# took over the one our own test had called a directive ("Profile ... and show me the summary.").
MEASUREMENT_ORDERS_ROUND12 = [
    "Profile the biggest scenario with ncu and show me the summary.", "nsys profile it and send the timeline",
    "p99?", "throw some nasty inputs at the sampler, ties, infs, tiny p, and see what comes out",
    "ours vs fi vs vllm pagedattn v2, same page table, whos quicker",
    "redo the bench with triton.testing.do_bench and a cold cache", "run pytest on everything, not just the new file",
    "full ci green or just ur one test",
    "for the w4a16 gemm at M=1, N=28672, K=8192 what's achieved dram throughput as % of peak",
    "verify kernel correct?", "run the moe kernel with an adversarial router distribution",
    "git bisect the 8% drop in decode tok/s",
    "you padded the smem tile to dodge conflicts, prove the padding actually did something",
    "tok/s vs concurrency curve for the whole decode loop plz", "show me the SOL section from ncu before we stop tuning",
    "for the fp32-factor / fp64-residual refinement solver, compute the normwise backward error in fp64 after each iteration and check it bottoms out around 1e-16",
    "run the exclusive-scan correctness tests on awkward lengths, including empty.",
    "you claim the padded tile removed all conflicts - but the complex64 version uses 8-byte elements. show the counter for that one",
    "disassemble the bf16 gemm kernel with cuobjdump -sass and confirm there are HGMMA / wgmma instructions and not just HMMA",
    "you said 'this is hitting the hopper tensor cores', but it's built for sm_90 not sm_90a. show me the instructions",
    "you said the temporal blocking version is 1.8x faster. only at 512^3? what about small grids that already sit in cache?",
    "test the particle-to-cell binning on three distributions - uniform, everything clustered in a single cell, and 90% of cells empty - checking the cell offsets against a cpu counting sort and reporting the time for each",
    "you say the pipeline is 'GPU bound', but with ~30 tiny kernels per step launch latency might dominate. show the timeline",
    "for ELL spmv on the 2d laplacian and on the random-sparsity matrix, get the L2 and L1 hit rates for the loads of x from nsight compute so we can see whether the gather is cache-friendly",
    "'done, everything passes' - you only ran the spmv tests after the last change. run everything and show me",
]
FACTS_AND_TECHNIQUES_ROUND12 = [
    "did you set the gemm stream to higher priority? cudaStreamCreateWithPriority lets the compute stream get scheduled ahead at block boundaries",
    "wouldn't a fixed-order two-pass reduction (per-block partials written out, then one block sums them in order) make it reproducible, unlike the atomics?",
    "would pivoting even matter for those batched systems if they're all diagonally dominant? no-pivot lu is stable for that class",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND12 = [
    "or #172?", "run the tests on it", "Please rerun with the L2 flush on.", "rerun the full benchmark",
    "send the numbers to the team channel", "git bisect start", "prove it", "show me the SASS of rmsnorm.cu.",
    "what about caching the K tile in smem?", "profile it with ncu and save the report",
    "you said you'd commit it. commit it now", "run the new shapes through the formatter",
]


# Round 13 (tuned on AO-AR's lost askings and proposed information) ...
MEASUREMENT_ORDERS_ROUND13 = [
    "you're saying it's latency bound bc occupancy is too low — did you actually profile that or is it a guess? show me the figure",
    "you said tensor cores are doing the work, but the throughput looks like ampere-style mma.sync to me. prove it's the async hopper path",
    "you're claiming the tile swizzle improves L2 reuse — can we see the cache numbers before/after?",
    "does the new kernel still win when M isn't a multiple of 128 — try M=1, 7, 127, 1000, 4097 with N=K=8192 bf16 against the old one",
    "sweep a few ragged sizes and post a timings table vs baseline",
    "watch nvidia-smi -q -d PERFORMANCE during the bench and paste the throttle reasons",
    "log torch.cuda.max_memory_allocated around the call and report it",
    "for the bf16 causal attention fwd at seqlen 8k, 32 heads, hdim 128, compute achieved TFLOP/s counting only unmasked flops and compare it to the dense bf16 tensor core peak",
    "you said each warp reads one contiguous 128B line — the bytes per request look off to me, can you verify?",
    "re-time the nbody step: 20 warmup launches, then 200 timed, report median and p95.",
    "you said unrolling by 8 is free. i'd bet it's spilling now. check",
    "run all tests (pytest tests/) and post the pass/fail counts.",
    "run ncu with --section SpeedOfLight_RooflineChart on the 3d stencil and send me the values.",
    "you said the rewrite is drop-in. i'd be surprised if empty segments still give 0 and not garbage. test it",
    "put the new warp-specialized gemm through compute-sanitizer synccheck and initcheck.",
    "perf diff old vs new build across all kernels in the lib, flag anything >3% slower",
    "i don't think it's launch overhead at all — 300us of gaps from 12 launches doesn't add up. show me",
    "that fail flaky?",
]
FACTS_AND_TECHNIQUES_ROUND13 = [
    "are you using ld.global.nc / 128-bit vector loads for the read-only weights? scalar 2-byte loads leave most of each sector on the floor",
    "shouldn't the csr row_ptr be loaded once per warp and broadcast with __shfl_sync instead of every lane reading it?",
    "have you looked at TMA (cp.async.bulk.tensor) for the tile loads? takes the address math off the threads",
    "would a persistent kernel with a grid-stride loop over frontier chunks avoid relaunching every bfs level?",
    "does the segmented sort even need a separate stabilizing pass? cub's radix sort is already stable",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND13 = [
    "you said you'd fix it. fix it", "check", "show me", "post a link in the channel", "watch out for the tail case",
    "put the new kernel through code review", "that's fine?", "would you rebase onto main?",
    "i don't think it's worth it, drop it", "log the change and report it to the team",
    "try num_stages=4 and num_warps=8, that was the best combo when I tried it last week",
]


# Round 14 (tuned on AS-AV's lost askings and proposed information; our own wordings) ...
MEASUREMENT_ORDERS_ROUND14 = [
    "for the fp8 gemm at M=N=K=8192, bf16 out, tile 128x128x64, can you check the sass to confirm it issues HGMMA and not HMMA?",
    "in the decode kernel where you moved the scales into smem (fp8, 64 heads), can you check the ptx for cp.async.bulk so we know TMA is used?",
    "before you start the autotune run can you check nvidia-smi for other jobs and how much memory is in use",
    "in the scan kernel where each warp handles one segment, can you measure warp execution efficiency / active threads per instruction",
    "work out the achieved GB/s from bytes read / kernel time for the softmax and post it",
    "work out MFU for the bwd pass at seqlen 4k and post it",
    "bench the kernel over a spread of sizes including odd ones and make a table",
    "run a sweep over batch sizes and chart the latency.",
    "measure L2 throughput for the gather kernel and post it next to the peak number.",
    "you keep claiming bank conflicts are gone for the padded tile, got numbers for that?",
    "the new scan was only tested on 2^20 elements, please run it at n=1, 33, 65537 and 2^20+3 and confirm the outputs match",
    "test the blur kernel with a 1021x769 frame and make sure the edge pixels are right",
    "put the fused gemm+gelu on a roofline plot and share it.",
    "max_memory_allocated after the first iteration or nvidia-smi, whichever is easier, just need the GiB",
    "record sm clocks and power draw while the sweep runs.",
    "for the grouped gemm at M=4096, E=64, top-2, what's kernel time vs host-side time per call? i suspect the launch dominates",
    "for these two tile shapes, which is faster?",
]
FACTS_AND_TECHNIQUES_ROUND14 = [
    "did you compile for sm_90 and not sm_90a? the wgmma instructions only exist on the arch-specific target",
    "is the 2e-3 mismatch just tf32? torch matmul on fp32 uses tf32 when allow_tf32 is on, turn it off for the reference",
    "the strided stores come from each lane writing down a column; have the warp write along the rows and transpose in smem instead",
    "is the win just a hot L2? the weights are 30MB, which fits in the 50MB L2, so repeated calls never go to hbm",
    "isn't cudaGraph basically made for this launch-bound decode loop?",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND14 = [
    "fix the race and post it", "time it and post it in the team channel", "make a table component for the dashboard",
    "make a table of contents for the docs", "make sure you commit before the sweep", "make sure to add a test for it",
    "test the fix and make sure to push it", "record the fix in the changelog", "record a video of the demo",
    "before you start the sweep, can you add a timeout to it?", "in the gemm where you changed the tile, can you revert it?",
    "when you're done with the refactor could you push the branch?", "the build is broken, please fix it",
    "the numbers look great, please commit them", "the sweep finished, please run the tests and push",
    "we just need a 2x speedup", "just need the kernel to compile", "have the warp read along rows instead",
    "have a go at the epilogue", "the patch was only tested on CI, please merge it",
    "can you check in the fix so we know it's saved?", "put the scales in smem and share it.",
    "is the fix just a one-liner? then commit it", "record the new tile sizes in the notes",
]


# Round 15 (tuned on AW-AZ's lost askings and proposed information; our own wordings) ...
MEASUREMENT_ORDERS_ROUND15 = [
    "Build the int4 gemv with -Xptxas -v and report registers per thread and spill stores.",
    "compile the bf16 epilogue with --resource-usage and paste the register and smem numbers",
    "Clear the allocator's peak stats, run one training step of the fused softmax, and report peak memory next to eager.",
    "Query nvidia-smi while it runs: clocks, power draw, throttle reasons, other processes. Paste it.",
    "Please compute and report the achieved bandwidth of the ELL kernel, counting the minimal bytes (values, indices, x and y) over the kernel time, and state it as a share of peak.",
    "Please compute the relative L2 norm of the difference between our output and the cuBLAS one on random inputs, and report it.",
    "Please take lts__t_sectors_op_read.sum from ncu for one sweep, divide by the grid size, and report the result.",
    "Compute the nonzeros-per-row statistics of the matrix and report the padding overhead of ELL.",
]
FACTS_AND_TECHNIQUES_ROUND15 = [
    "The decode loop is launch-bound at batch 1. Capture the whole step in a CUDA graph.",
    "the softmax kernel looks memory bound here, fuse it into the matmul epilogue",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND15 = [
    "Build it with -O3 and fp8 accumulation and report back when done", "capture it into a cuda graph",
    "reset the branch, rerun the migration, and report to the team channel", "take the afternoon off",
    "compute the softmax in fp32 and report back when it's merged", "clean up the kernel and report the line count in the PR",
    "query the database and update the dashboard", "compile it with -Xptxas -v and switch the accumulator to fp16",
    "build with -lineinfo and use fp8 for the scales, then report the time",
]


# Round 16, the classifier only (tuned on BA-BD's lost askings and proposed information; our own wordings) ...
MEASUREMENT_ORDERS_ROUND16 = [
    "check the sass and tell me the width of every global load and store in the main loop",
    "do the loads coalesce in the transpose", "shouldn't the kernel be tested with odd sizes?",
    "can you check in the profiler whether the stores are serialised by bank conflicts?",
]
FACTS_AND_TECHNIQUES_ROUND16 = [
    "ncu prints the source line of every stall if you build with -lineinfo",
    "cuobjdump -sass lists every instruction, far easier than guessing from the ptx",
    "shouldn't the weights be loaded with an evict-last hint so they stay in L2?",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND16 = [
    "load the tile and store it transposed", "do the epilogue in registers",
    "for the ssm scan, do the intra-chunk part as a dense matmul and carry the state across chunks",
]


# Round 17, the classifier (tuned on BE-BH's lost askings and proposed information; our own wordings,
# other kernels than the writers') ...
MEASUREMENT_ORDERS_ROUND17 = [
    "run the decoder for 10k frames & report the p99 frame time",
    "time the fused softmax on 4k rows & tell me the GB/s",
    "feed a step input into the IIR filter and report the settling index, compared to scipy.signal.lfilter",
    "pass a chirp thru ur resampler & report the aliasing SNR against scipy",
    "run the grouped gemm on both paths and report the largest elementwise gap between the outputs",
    "run the two layernorm kernels separately and report the duration of each",
    "run the solver and at every iteration report the residual norm",
    "for the batched LU solve (n=32, fp64, 10k matrices, partial pivoting, cuSOLVER getrf as the baseline) whats the worst backward error over the whole batch?",
    "How the runtime of our decoupled look-back scan (int32, one pass, 4 items per thread) grows when we go from 1M to 100M elements, compared with CUB on the same sizes?",
    "Setup cost?",
    "You concluded the kernel is memory bound — what does ncu report for DRAM throughput?",
]
FACTS_AND_TECHNIQUES_ROUND17 = [
    "Isn't the scan limited by the serial carry between blocks, so that a decoupled look-back would help?",
    "Isn't the slowdown coming from the atomics on the histogram bins? Use per-warp private histograms.",
    "isn't the NaN caused by the log of zero probabilities?",
    "Isn't the mismatch coming from the reduction order? Do the sum and the max in fp32.",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND17 = [
    "push the branch & report back when done", "push the fix thru review and merge it", "push the release through CI",
    "bridge the gap pls", "how the kernel works, right?", "at every step report to the team channel",
    "feed the new config into the scheduler and report back when done", "run the tests & commit",
    "You concluded it was memory bound, but it's compute bound.",
]


# Round 18, the classifier (tuned on BI-BL's lost askings and proposed information; our own wordings) ...
MEASUREMENT_ORDERS_ROUND18 = [
    "You said the tail handling covers any length — did you try an odd length like 1023, or only 1024? What error did it give?",
    "You said the fused kernel wins at every size — at batch 1 did you measure the Python dispatch and the launch latency, or just the kernel time from the profiler trace?",
    "Set CUDA_LAUNCH_BLOCKING=1, rerun the scan at 1M elements, and report the time of each kernel.",
    "Profile one call of the layernorm with ncu, pull the DRAM read and write bytes, and report them against the minimum traffic.",
    "2048 vs 2047?",
    "Launch the split-K kernel 100 times on fixed inputs and report how many runs differ bit-for-bit from the first.",
    "have you looked at the branch efficiency before and after, or is that inferred from the speedup?",
    "Compute the exact reference for the three test sizes and report, for each, our value, the difference and the relative error.",
    "Run the sort three ways — radix, bitonic and the library — and report all three with their standard errors.",
    "Solve the test systems on the GPU and with LAPACK, and report each pair of solutions and their difference.",
]
FACTS_AND_TECHNIQUES_ROUND18 = [
    "Wouldn't a warp-per-row layout cut the shuffle count for short rows a lot?",
    "Isn't the bug that you read the bias before the barrier, so some warps see stale values?",
    "Launch the stream-K kernel with 4 splits and report the time.",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND18 = [
    "did you try a larger block size?", "Set NUM_WARPS=8 and commit it.", "or #172?",
    "read and write the docs before you start", "report errors to the user in the ui",
    "Launch the kernel 100 times in a loop and commit the script.", "wouldn't the 2x be noise? I think it's fine",
    "or is the cache size the problem?",  # (alone: a cause offered, not the other half of a question)
]


# Round 19, the classifier (tuned on BM-BP's lost askings and proposed information; our own wordings) ...
MEASUREMENT_ORDERS_ROUND19 = [
    "Instrument the pooling kernel to count the rows that are all padding and report the wasted share of the total work.",
    "Run the optimizer step ten times with the same seed and report whether the weights are reproducible to the last bit across runs.",
    "You said the blocked format wastes little — did you count the padding, or is that from the dense matrices rather than the sparse graphs?",
    "Compute the kinetic energy every hundred steps of the run and report its drift next to the reference code's.",
    "did u try it with the real dataset yet? only seen the synthetic one so far",
]
FACTS_AND_TECHNIQUES_ROUND19 = [
    "The atomics make the order of the sums vary, so expect small differences; compare with a relative tolerance rather than exact equality.",
    "Some spread between runs is expected from the nondeterministic reduction; compare against the spread of repeated reference runs, not against zero.",
    "Have you considered running a prefilter on the GPU before the matching, to drop obvious outliers instead of relying on the robust loss?",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND19 = [
    "instrument the code and commit it", "run it ten times and commit the script", "follow the trend please",
]
QUESTIONS_STILL_ROUND19 = [
    "have you considered running the benchmark again?", "have you tried running compute-sanitizer on it?",
    "compare against cuBLAS and report the ratio",
]



# Round 20, the classifier (tuned on BQ-BV's lost askings and proposed information; our own wordings) ...
MEASUREMENT_ORDERS_ROUND20 = [
    "Time the kernel alone, then again with the copy engine busy beside it. Report both latencies.",
    "Could you check with the profiler counters that nothing goes to the host in the big run?",
    "Compute an exact sum in float64 on the host, launch the kernel, report the worst abs deviation from it.",
    "Pad share of the step?",
    "Null keys correct?",
    "Please make inputs with heavy key repetition on both sides, run your join and the library's, and report both cardinalities and whether the row sets agree.",
    "Could you share the measured bandwidth behind that claim, rather than the estimate?",
    "At what per-GPU buffer size does one-shot all-reduce stop beating two-shot on 8x H100 for fp16, sweeping 16 KiB to 128 MiB in powers of two?",
    "did you try a length with a remainder, and do the last elements come out right?",
    "Have you tried a case where every key repeats?",
    "You said our scan 'scales better than the library at long context', which would be fantastic news for everyone — but did you actually time past 32k? I'd love to see the rate at every length before we believe in it!",
    "did you measure how much memory stays allocated after the forward? I suspect the temporaries are kept too.",
    "When the input exceeds device memory, say 200 GB of keys, how many bytes cross PCIe?",
    "Please sort a column where the payloads are their original offsets, then report whether the offsets stay ascending within each group.",
]
FACTS_AND_TECHNIQUES_ROUND20 = [
    "Isn't the deadlock from waiting on a flag that was never reset between launches?",
    "Have you looked at what CUTLASS does for the epilogue? Same trick.",
    "Might it be worth trying a two-level hash, so the worst probe chain stays short?",
    "Did you look at the profile? Because I have a hunch the L2 is thrashing.",
    "The H200 has 141 GB of HBM, so how big can the build side be?",
    # the adversary of round 20's terse checks: the question asked, then its answer handed over with it
    "Null groups correct? They are dropped because the hash ignores nulls.",
    "Odd seqlens ok? They fail because the mask is off by one.",
    "p99? it's high because of the allocator.", "spills? the loop unroll causes them.",
]
# ... and, written first as the adversary of those rules, their look-alikes.
NOT_QUESTIONS_ROUND20 = [
    "Report both bugs upstream.", "Build the reference, run the kernel, report back when done.",
    "Could you share the code?", "At what point we stop is your call.", "I'd like to see this merged today.",
    "I'd love to see this merged before the weekend.", "In which case, we keep the old kernel.",
    "Fix the sort, then report whether CI passes.", "Run the migration and report whether it finished.",
    "Could you confirm with the team that we ship on Friday?", "have you tried a version with the async copies?",
    "did you try a case with a persistent kernel?", "Transpose the tiles for coalescing?", "That right?",
]
QUESTIONS_STILL_ROUND20 = [
    "Have you looked at what the profiler says about the stall reasons?",
    "Was the hang from the first launch or the second?",
    "p99? it's high because I ran it on a busy node, rerun pls", "spills? the profile shows them",
]

# Round 22 (after CA and CC proposed one information message each: a tool's capability or a cause
# stated, then an order to compare at the setting it names). Our own words, each failing before:
FACTS_AND_TECHNIQUES_ROUND22 = [
    "FAISS lets you pick 4-bit PQ codes through the factory string; compare against that, not the 8-bit default.",
    "cuBLAS allows you to hand it a larger workspace via cublasSetWorkspace; time it with that set, not the default.",
    "The iteration count depends on the relaxation factor, so it matches the CPU only at one setting; compare at "
    "omega = 1.2, or you are measuring the smoother and not your kernel.",
    "The TLB reach depends on the page size, so the slowdown shows only past 2 GB; rerun it with huge pages.",
]
# ... and their look-alikes, written first: a dependence asked about, a capability quoted back, a baseline chosen.
QUESTIONS_STILL_ROUND22 = [
    "Does the time depend on the batch size? Run 1, 8 and 64 and report each.",
    "You said the speed depends on the clock — did you lock the clocks before measuring?",
    "Compare against the fp32 run, not just the bf16 one, and report the max error.",
    "How much does the error depend on the block size?",
    "You said cuVS lets you pick the LUT dtype — what recall do you get with the 8-bit table?",
]

# Round 23 (after CE-CL lost askings to numbered steps, "hw"/"wat" typed for how/what, and "record/read ...
# and report"). Our own words, each failing before:
MEASUREMENT_ORDERS_ROUND23 = [
    "1) Run the softmax kernel at 8k rows, 5 warm reps. 2) Report the median time for ours and torch's.",
    "Please do the following: 1) run 1k decode steps, 2) report the p99 step time alongside vLLM's.",
    "(1) Profile the gather with ncu. (2) Report the L2 hit rate.",
    "hw much smem is each block using", "hw bad is the tail latency at batch 1",
    "l2 hits on the gather, wat % r we getting",
    "Read torch.cuda.max_memory_allocated after the forward and report it.",
    "Record the step time over 500 steps and report p99 and max.",
]
# ... and their look-alikes, written first: numbered changes, "hw" for hardware, reading and recording
# that measure nothing.
NOT_QUESTIONS_ROUND23 = [
    "1) Fix the off-by-one in the tail loop. 2) Push the branch.",
    "1) Switch the accumulator to fp32. 2) Report the max error.",
    "Please do the following: 1) rebase on main, 2) push.",
    "hw support for fp8 is missing on the A100", "hw much is not the point, the API is.",
    "Read the docs on cp.async before you start.", "Record a short demo video for the README.",
    "Record the fix in the changelog and push it.",
]

#: rounds 9-23: what each message must be read as ("not question": anything but a question)
LATER_ROUNDS = ([(t, "question") for t in MEASUREMENT_ORDERS_ROUND9 + QUESTIONS_THAT_LOOK_LEADING + MEASUREMENT_ORDERS_ROUND10
                  + MEASUREMENT_ORDERS_ROUND11 + MEASUREMENT_ORDERS_ROUND12 + MEASUREMENT_ORDERS_ROUND13
                  + MEASUREMENT_ORDERS_ROUND14 + MEASUREMENT_ORDERS_ROUND15
                  + MEASUREMENT_ORDERS_ROUND16 + MEASUREMENT_ORDERS_ROUND17
                  + MEASUREMENT_ORDERS_ROUND18 + MEASUREMENT_ORDERS_ROUND19 + QUESTIONS_STILL_ROUND19
                  + MEASUREMENT_ORDERS_ROUND20 + QUESTIONS_STILL_ROUND20 + QUESTIONS_STILL_ROUND22
                  + MEASUREMENT_ORDERS_ROUND23]
                + [(t, "information") for t in FACTS_AND_TECHNIQUES_ROUND9 + FACTS_AND_TECHNIQUES_ROUND10
                   + FACTS_AND_TECHNIQUES_ROUND12 + FACTS_AND_TECHNIQUES_ROUND13
                   + FACTS_AND_TECHNIQUES_ROUND14 + FACTS_AND_TECHNIQUES_ROUND15
                   + FACTS_AND_TECHNIQUES_ROUND16 + FACTS_AND_TECHNIQUES_ROUND17
                   + FACTS_AND_TECHNIQUES_ROUND18 + FACTS_AND_TECHNIQUES_ROUND19
                   + FACTS_AND_TECHNIQUES_ROUND20 + FACTS_AND_TECHNIQUES_ROUND22]
                + [(t, "not question") for t in ORDERS_THAT_ONLY_LOOK_LIKE_ROUND9 + NOT_QUESTIONS_ROUND10 + NOT_QUESTIONS_ROUND11
                   + NOT_QUESTIONS_ROUND12 + NOT_QUESTIONS_ROUND13 + NOT_QUESTIONS_ROUND14
                   + NOT_QUESTIONS_ROUND15 + NOT_QUESTIONS_ROUND16 + NOT_QUESTIONS_ROUND17
                   + NOT_QUESTIONS_ROUND18 + NOT_QUESTIONS_ROUND19 + NOT_QUESTIONS_ROUND20 + NOT_QUESTIONS_ROUND23])


@pytest.mark.parametrize(("text", "expected"), LATER_ROUNDS)
def test_later_rounds_orders_leading_questions_and_their_look_alikes(text, expected):
    label = classify(text).label
    assert (label != "question") if expected == "not question" else (label == expected), (text, classify(text))
