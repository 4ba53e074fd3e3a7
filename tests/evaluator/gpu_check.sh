#!/usr/bin/env bash
# The evaluator's GPU acceptance run, for the device machine (no Textual/anthropic there):
# environment facts, the gpu-marked tests of tests/evaluator (which record their figures), the
# cpu tasks' seed-vs-seed there too, then the figures table last.
#   bash tests/evaluator/gpu_check.sh            (writes logs under $OUT when it is set)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-gpu-out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
export KERNELSEEK_CACHE=${KERNELSEEK_CACHE:-/tmp/ks-gpu-cache}
export KS_FIGURES=$OUT/figures.jsonl
export PYTHONUNBUFFERED=1
: > "$KS_FIGURES"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
python3 -c "import sys, numpy, cuda.bindings; print(sys.version.split()[0], 'numpy', numpy.__version__, 'cuda.bindings', cuda.bindings.__version__)"
nvcc --version | tail -1; which cuobjdump nvdisasm || true
python3 -m pytest tests/evaluator -m gpu -v -p no:cacheprovider ${KS_PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest.log" | grep -E "PASSED|FAILED|ERROR|SKIPPED|passed|failed|Error|error" | tail -60
# the cpu tasks' timing acceptance on this machine's quiet cores (the dev box's two are shared)
python3 -m pytest tests/evaluator/test_eval_cpu.py -v -p no:cacheprovider -k "seed_against or planted" 2>&1 | tee "$OUT/pytest_cpu.log" | grep -E "PASSED|FAILED|ERROR|passed|failed" | tail -10
python3 tests/evaluator/eval_figures.py "$KS_FIGURES"
