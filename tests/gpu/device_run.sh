#!/usr/bin/env bash
# One device call that checks everything GPU-side: the gpu-marked tests of the evaluator and the
# attention task, `kernelseek eval` on both cuda tasks' quick subsets (the user's path, timed),
# then the attention task's full seed-vs-seed sweep with upstream baselines and the broken
# candidates. Logs under $OUT; a short table last.
#   bash tests/gpu/device_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 KERNELSEEK_CACHE=/tmp/ks-cache KS_FIGURES=$OUT/figures.jsonl
: > "$KS_FIGURES"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
t0=$(date +%s.%N)
python3 -m pytest tests/evaluator tests/attention_sm90 -m gpu -q -p no:cacheprovider -rA 2>&1 \
  | tee "$OUT/pytest_gpu.log" | grep -E "^(PASSED|FAILED|ERROR)|passed|failed" | tail -40
t1=$(date +%s.%N)
for task in rmsnorm-cuda attention-fwd-sm90; do
  s=$(date +%s.%N)
  python3 -m console eval $task --quick --json "$OUT/quick-$task.json" > "$OUT/quick-$task.txt" 2>&1
  echo "eval $task --quick: exit $? wall $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"
done
python3 tests/attention_sm90/acceptance.py --out "$OUT" --stages full,matrix 2>&1 | tee "$OUT/acceptance.log" | tail -45
echo "gpu pytest wall: $(python3 -c "print(round($t1 - $t0, 1))") s"
python3 tests/evaluator/eval_figures.py "$KS_FIGURES" | tail -25
