#!/usr/bin/env bash
# One device call that checks everything GPU-side, in about 6 minutes on an H200:
#  1. the gpu-marked tests of the evaluator and the attention task (the reference against numpy,
#     the seed and five broken candidates on all 179 scenarios, seed vs seed and the planted
#     2x-slower/faster on rmsnorm-cuda through the sandboxed host, the timing attacks, faults and
#     hangs), each recording its figures; and tests/gpus' (three evaluations sharing the GPU take
#     turns timing, `eval --quick --gpus all` on the idle GPUs: about 30 s);
#  2. `kernelseek eval rmsnorm-cuda --quick` as a user runs it (exit status and wall time);
#  3. the attention task's full seed-vs-seed sweep with upstream baselines (wall time, where the
#     time went, the host's per-call overhead). The correctness matrix runs once, in step 1.
# Logs under $OUT; the figures table last.
#   bash tests/gpu/device_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 KERNELSEEK_CACHE=/tmp/ks-cache KS_FIGURES=$OUT/figures.jsonl
: > "$KS_FIGURES"
nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.sm,temperature.gpu --format=csv,noheader  # two processes share the GPU: compute mode must be Default
python3 -c "from evaluator.sandbox import find_sandbox; s = find_sandbox(); print('sandbox:', s.kind, '-', s.note)"
t0=$(date +%s.%N)
python3 -m pytest tests/evaluator tests/attention_sm90 tests/gpus -m gpu -q -p no:cacheprovider -rA 2>&1 \
  | tee "$OUT/pytest_gpu.log" | grep -E "^(PASSED|FAILED|ERROR)|passed|failed" | tail -50
t1=$(date +%s.%N)
s=$(date +%s.%N)
python3 -m console eval rmsnorm-cuda --quick --json "$OUT/quick-rmsnorm-cuda.json" > "$OUT/quick-rmsnorm-cuda.txt" 2>&1
echo "eval rmsnorm-cuda --quick: exit $? wall $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"
tail -4 "$OUT/quick-rmsnorm-cuda.txt"
python3 tests/attention_sm90/acceptance.py --out "$OUT" --stages full 2>&1 | tee "$OUT/acceptance.log" | tail -45
echo "gpu pytest wall: $(python3 -c "print(round($t1 - $t0, 1))") s"
python3 tests/evaluator/eval_figures.py "$KS_FIGURES" | tail -40
