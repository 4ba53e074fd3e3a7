#!/usr/bin/env bash
# One device call that checks everything GPU-side, in about 6 minutes on an H200 (every step has a
# time limit, so the whole stays under 9 minutes whatever hangs, inside the device's 10):
#  1. the gpu-marked tests of the evaluator and the attention task (the reference against numpy,
#     the seed and five broken candidates on all 179 scenarios, seed vs seed and the planted
#     2x-slower/faster on rmsnorm-cuda through the sandboxed host, the timing attacks and the
#     launch census that names them, the census's cost per call, faults and hangs), each recording
#     its figures; and tests/gpus' (three evaluations sharing the GPU take turns timing,
#     `eval --quick --gpus all` on the idle GPUs: about 30 s); the slowest tests are listed;
#     (`kernelseek eval rmsnorm-cuda --quick` as a user runs it, from a cold cache, is one of them);
#  2. the attention task's full seed-vs-seed sweep with upstream baselines (wall time, where the
#     time went phase by phase, the census, any flag an honest sweep raised).
# Logs under $OUT; the compact figures table last. pytest runs with `-o addopts=-ra`: the GPU node has
# no pytest-xdist (the project's addopts start two workers).
#   bash tests/gpu/device_run.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 KERNELSEEK_CACHE=/tmp/ks-cache KS_FIGURES=$OUT/figures.jsonl
: > "$KS_FIGURES"
secs() { python3 -c "import time; print(round(time.time() - $1, 1))"; }
timeout 15 nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.sm,temperature.gpu --format=csv,noheader  # two processes share the GPU: compute mode must be Default
timeout 40 python3 -c "
from pathlib import Path
from evaluator.sandbox import find_sandbox
from evaluator.census import CensusUnavailable, census_library, find_cupti
s = find_sandbox(); print('sandbox:', s.kind, '-', s.note)
try:
    print('cupti:', find_cupti()); print('census library:', census_library(Path('$KERNELSEEK_CACHE')))
except CensusUnavailable as exc:
    print('no launch census:', exc)"
t0=$(date +%s.%N)
timeout -k 10 300 python3 -m pytest -o addopts=-ra tests/evaluator tests/attention_sm90 -m gpu -q -p no:cacheprovider -rA --durations=12 2>&1 \
  | tee "$OUT/pytest_gpu.log" | grep -E "^(PASSED|FAILED|ERROR)|passed|failed|^[0-9.]+s (call|setup)" | tail -60
echo "gpu pytest wall: $(secs "$t0") s (limit 300)"
# tests/gpus in a process of its own: the one above holds a CUDA context, and `--gpus all` rightly
# counts a GPU with another process on it as busy
timeout -k 10 90 python3 -m pytest -o addopts=-ra tests/gpus -m gpu -q -p no:cacheprovider -rA 2>&1 \
  | tee "$OUT/pytest_gpus.log" | grep -E "^(PASSED|FAILED|ERROR)|passed|failed" | tail -8
s=$(date +%s.%N)
timeout -k 10 150 python3 benchmarks/attention_acceptance.py --out "$OUT" --stages full > "$OUT/acceptance.out" 2>&1
echo "attention full sweep: exit $? wall $(secs "$s") s (limit 150)"
grep -E "^full: wall|^FULL |Traceback|Error" "$OUT/acceptance.out" | cut -c1-400 | tail -6
timeout 20 python3 tests/evaluator/eval_figures.py "$KS_FIGURES" "$OUT/summary.json" | tail -60
