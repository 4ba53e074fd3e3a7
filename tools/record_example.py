"""A scripted model that works on attention-cpu the way an agent does, for the bundled examples.

It drives the real runner and the real evaluator through real kernel edits: it reads the seed,
measures it, finds the serial dot-product reduction, vectorises it (a large, real win), checks
the win is not noise, tries a row-blocked version with a causal bound off by one and first calls
the failures rounding noise, fixes the bound, finds the blocked version slower and goes back,
claims a hardware limit, then measures and makes one more change before it declares the goal met.
Every figure in the recorded session comes from the evaluator; nothing is canned but the words.

The same story is told with either agent's tools: KernelSeek's native five (read_file,
evaluate, edit_file, ...) or Claude Code's (Read, Bash `ks-evaluate`, Edit, Write), recorded
through `kernelseek run --agent claude-code` with the real Claude Code CLI.

    .venv/bin/python tools/record_example.py record [--agent native|claude-code] [--out DIR]
    .venv/bin/python tools/record_example.py serve [--port 8765]  # serve it for `kernelseek steer` by hand
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "agent"))  # the scripted Messages API server the tests use

from fake_anthropic import FakeAnthropic, Reply, by_step, text, tool  # noqa: E402

EXAMPLES = {"native": REPO / "console" / "examples" / "attention-cpu",
            "claude-code": REPO / "console" / "examples" / "attention-cpu-claude-code"}
CANDIDATE = "candidate.c"
SEED = (REPO / "kernels" / "attention-cpu" / "seed.c").read_text()

DOT = "                for (int d = 0; d < D; ++d) dot += q[d] * k[(long)j * D + d];"
DOT_SIMD = "#pragma omp simd reduction(+:dot)\n" + DOT
DIVIDE = """            for (int j = 0; j <= last; ++j) {
                const float w = s[j] / sum;"""
RECIPROCAL = """            const float inv = 1.0f / sum;
            for (int j = 0; j <= last; ++j) {
                const float w = s[j] * inv;"""
VECTORISED = SEED.replace(DOT, DOT_SIMD)
assert VECTORISED != SEED and DIVIDE in VECTORISED, "the seed changed: update the demo's edits"

# four query rows per block, each key row loaded once for the four; the causal bound is one too
# far (the demo's deliberate mistake, fixed later by an edit)
BLOCKED_WRONG_BOUND = "last[r] = p->causal ? i0 + r + (SK - SQ) + 1 : SK - 1;"
BLOCKED_RIGHT_BOUND = "last[r] = p->causal ? i0 + r + (SK - SQ) : SK - 1;"
BLOCKED = r"""/* attention-cpu: four query rows of one head per block, so each key and value row is loaded
 * once for four queries; simd reductions for the dot products. */
#include <math.h>
#include <stdlib.h>

#include "attention.h"

#define RB 4

int ks_attention(const AttentionParams* p, void* stream) {
    (void)stream;
    const int B = p->batch, H = p->heads_q, HK = p->heads_kv, SQ = p->seq_q, SK = p->seq_k, D = p->head_dim;
    const int group = H / HK;
    const int per_head = (SQ + RB - 1) / RB;
    const long nblocks = (long)B * H * per_head;
    int failed = 0;
#pragma omp parallel
    {
        float* s = malloc(sizeof(float) * (size_t)SK * RB);
        if (!s) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (long blk = 0; blk < nblocks; ++blk) {
            if (!s) continue;
            const int i0 = (int)(blk % per_head) * RB;
            const int h = (int)((blk / per_head) % H);
            const int b = (int)(blk / ((long)per_head * H));
            const int hk = h / group;
            const int nr = SQ - i0 < RB ? SQ - i0 : RB;
            const float* k = p->k + ((long)b * HK + hk) * SK * D;
            const float* v = p->v + ((long)b * HK + hk) * SK * D;
            int last[RB];
            int maxlast = -1;
            for (int r = 0; r < nr; ++r) {
                LAST_BOUND
                if (last[r] > SK - 1) last[r] = SK - 1;
                if (last[r] > maxlast) maxlast = last[r];
            }
            const float* q[RB];
            float m[RB], sum[RB];
            for (int r = 0; r < nr; ++r) {
                q[r] = p->q + (((long)b * H + h) * SQ + i0 + r) * D;
                m[r] = -INFINITY;
            }
            for (int j = 0; j <= maxlast; ++j) {
                const float* kj = k + (long)j * D;
                for (int r = 0; r < nr; ++r) {
                    float dot = 0.0f;
#pragma omp simd reduction(+:dot)
                    for (int d = 0; d < D; ++d) dot += q[r][d] * kj[d];
                    const float sc = j <= last[r] ? dot * p->scale : -INFINITY;
                    s[r * SK + j] = sc;
                    if (sc > m[r]) m[r] = sc;
                }
            }
            for (int r = 0; r < nr; ++r) {
                float* sr = s + (long)r * SK;
                float acc = 0.0f;
                for (int j = 0; j <= last[r]; ++j) {
                    sr[j] = expf(sr[j] - m[r]);
                    acc += sr[j];
                }
                sum[r] = acc;
                float* o = p->o + (((long)b * H + h) * SQ + i0 + r) * D;
                for (int d = 0; d < D; ++d) o[d] = 0.0f;
            }
            for (int j = 0; j <= maxlast; ++j) {
                const float* vj = v + (long)j * D;
                for (int r = 0; r < nr; ++r) {
                    if (j > last[r]) continue;
                    float* o = p->o + (((long)b * H + h) * SQ + i0 + r) * D;
                    const float w = s[r * SK + j] / sum[r];
#pragma omp simd
                    for (int d = 0; d < D; ++d) o[d] += w * vj[d];
                }
            }
        }
        free(s);
    }
    return failed ? 1 : 0;
}
""".replace("LAST_BOUND", BLOCKED_WRONG_BOUND)

def geomeans(req) -> list[float]:
    """The geomeans the evaluator reported so far in this conversation, in order."""
    found = []
    for m in req.messages:
        if m.get("role") != "user" or isinstance(m.get("content"), str):
            continue
        for b in m["content"]:
            if b.get("type") == "tool_result":
                body = b.get("content")
                body = body if isinstance(body, str) else "".join(x.get("text", "") for x in body or [])
                hit = re.search(r"passed \d+/\d+ · geomean (\d+\.\d+)", body)
                if hit:
                    found.append(float(hit.group(1)))
    return found


class NativeTools:
    """The story's tool calls as KernelSeek's native tools."""

    def read(self, path: str):
        return tool("read_file", path=path)

    def evaluate(self):
        return tool("evaluate")

    def edit(self, path: str, old: str, new: str):
        return tool("edit_file", path=path, old_string=old, new_string=new)

    def write(self, path: str, content: str):
        return tool("write_file", path=path, content=content)

    def bash(self, command: str, description: str):
        return tool("bash", command=command)


class ClaudeCodeTools(NativeTools):
    """The same calls as Claude Code's tools (absolute paths in the session's workspace)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    def read(self, path: str):
        return tool("Read", file_path=str(self.workspace / path))

    def evaluate(self):
        return tool("Bash", command="ks-evaluate", description="evaluate the candidate")

    def edit(self, path: str, old: str, new: str):
        return tool("Edit", file_path=str(self.workspace / path), old_string=old, new_string=new)

    def write(self, path: str, content: str):
        return tool("Write", file_path=str(self.workspace / path), content=content)

    def bash(self, command: str, description: str):
        return tool("Bash", command=command, description=description)


def story(t: NativeTools):
    """The scripted model, telling its story with the tools `t` makes."""

    def after_rerun(req) -> Reply:
        g = geomeans(req)
        first, again = g[-2], g[-1]
        if abs(again / first - 1) <= 0.05:
            verdict = f"It holds: {first:.2f}x, then {again:.2f}x on fresh inputs."
        else:
            verdict = (f"It moved from {first:.2f}x to {again:.2f}x on fresh inputs: this machine is noisy, "
                       f"but both are far above 1 and every scenario's interval excludes 1.")
        return Reply(text(verdict + " Next idea: block four query rows of a head, so that every key and value "
                          "row is loaded once for four queries instead of once per query."),
                     t.write(CANDIDATE, BLOCKED))

    def after_blocked(req) -> Reply:
        g = geomeans(req)
        return Reply(text(f"Correct now, but {g[-1]:.2f}x against {max(g):.2f}x for the single-row version: "
                          "the row loop inside the key loop breaks the vector loops into short pieces. Going "
                          "back to the simpler kernel."),
                     t.write(CANDIDATE, VECTORISED))

    def finish(req) -> Reply:
        return Reply(text(f"Every scenario is correct and the geomean is {geomeans(req)[-1]:.2f}x, above the "
                          "goal. Done."))

    def after_stop_check(req) -> Reply:
        """Past the script: the stop gate said no (noise on a busy machine), so measure again;
        after a measurement, claim the goal again (the gate decides)."""
        if req.tool_results():
            return finish(req)
        return Reply(text("The gate's figure is below my last reading; measuring again."), t.evaluate())

    return by_step(
        Reply(text("I'll read the candidate first: what it computes and how the loops are laid out."),
              t.read(CANDIDATE)),
        Reply(text("Before changing anything, the seed against itself, to know the noise floor here."),
              t.evaluate()),
        Reply(text("The score loop `dot += q[d] * k[j*D + d]` is one serial chain of adds: without "
                   "permission to reassociate, the compiler cannot vectorise it. Asking the compiler "
                   "what it did with those loops:"),
              t.bash(VEC_CHECK, "ask gcc about vectorisation")),
        Reply(text("As suspected, the reduction stays scalar. An OpenMP simd reduction lets it split "
                   "the sum into vector lanes without changing the rest of the kernel."),
              t.edit(CANDIDATE, DOT, DOT_SIMD)),
        Reply(t.evaluate()),
        Reply(text("That is a large jump for one pragma. Same source, fresh inputs: evaluating again "
                   "to see whether it holds."),
              t.evaluate()),
        after_rerun,
        Reply(t.evaluate()),
        Reply(text("Only the causal scenarios fail, and by little: this looks like floating-point "
                   "rounding from the reordered sums, within noise. The tolerance is very tight for "
                   "fp32. Let me look at the bound anyway."),
              t.bash(f"grep -n 'last\\[r\\] =' {CANDIDATE}", "find the causal bound")),
        Reply(text("Looking at it properly: a query at position i may see keys up to i + (SK - SQ), and "
                   "the `+ 1` lets every causal row see one key past the diagonal. That is a real bug, "
                   "not rounding. Fixing the bound."),
              t.edit(CANDIDATE, BLOCKED_WRONG_BOUND, BLOCKED_RIGHT_BOUND)),
        Reply(t.evaluate()),
        after_blocked,
        Reply(t.evaluate()),
        Reply(text("This is about as fast as this machine allows: the kernel is bound by memory "
                   "bandwidth now, so further gains would have to come from the hardware."),
              t.bash("nproc; grep -m1 'model name' /proc/cpuinfo", "look at the machine")),
        Reply(text("Checking that claim with numbers instead: the evaluator's table puts every scenario "
                   "far below the measured fp32 peak, and K/V for one head fit in cache, so it is not "
                   "the memory system. One thing still costs a divide per element in the value loop: "
                   "`s[j] / sum`. Hoisting the reciprocal."),
              t.edit(CANDIDATE, DIVIDE, RECIPROCAL)),
        Reply(t.evaluate()),
        finish,
        then=lambda req: after_stop_check(req),
    )


VEC_CHECK = (f"gcc -O3 -march=native -fopenmp -fopt-info-vec-all -c {CANDIDATE} -o /dev/null 2>&1 "
             "| grep -E ':3[5-9]|:4[0-9]' | head -8")

STORY = story(NativeTools())

NOTE = ("Recorded by KernelSeek's own tools: a scripted model (tools/record_example.py) driving "
        "the real runner and evaluator on attention-cpu through real kernel edits, with autopilot "
        "questions from the bank at its decision points. Every figure is measured.")


def record(out: Path, *, agent: str = "native", budget_s: float = 0.5) -> Path:
    """Run the real runner (and, for claude-code, the real Claude Code CLI) against the scripted
    model; copy the session to `out`."""
    work = Path(tempfile.gettempdir()) / f"kernelseek-example-{agent}"  # a stable path: it shows in the tools' calls
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    session = work / "session"
    cfg = work / "agent.yaml"
    model = "scripted-demo" if agent == "native" else "claude-sonnet-4-5"
    note = NOTE if agent == "native" else NOTE.replace("the real runner", "Claude Code (the real CLI, driven by "
                                                                           "`kernelseek run --agent claude-code`), the real runner")
    cfg.write_text(f"note: {note!r}\nmodel: {model}\neval_time_budget_s: {budget_s}\n")
    handler = STORY if agent == "native" else story(ClaudeCodeTools(session / "workspace"))
    with FakeAnthropic(handler=handler) as server:
        env = {**os.environ, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-demo-not-a-key",
               "KERNELSEEK_STEERING_LOG": "off"}
        cmd = [sys.executable, "-m", "console", "run", "attention-cpu", "--session", str(session), "--agent", agent,
               "--config", str(cfg), "--autopilot", "--grace", "0", "--max-turns", "24"]
        t0 = time.time()
        proc = subprocess.run(cmd, env=env, cwd=REPO, text=True, capture_output=True)
        print(proc.stdout[-4000:], proc.stderr[-2000:], sep="\n")
        print(f"recorded in {time.time() - t0:.0f} s, exit {proc.returncode}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in ("events.jsonl", "inbox.jsonl"):
        if (session / name).exists():
            shutil.copyfile(session / name, out / name)
    shutil.copytree(session / "evals", out / "evals")
    # the final kernel alone: the header is the task's (the evaluator builds with the task's folder
    # on the include path), and a copy here could only drift from it
    (out / "workspace").mkdir()
    shutil.copyfile(session / "workspace" / CANDIDATE, out / "workspace" / CANDIDATE)
    shutil.rmtree(work, ignore_errors=True)
    return out


def serve(port: int) -> None:
    server = FakeAnthropic(handler=STORY, port=port).start()
    print(f"scripted demo model at {server.url}\n"
          f"  ANTHROPIC_BASE_URL={server.url} ANTHROPIC_API_KEY=sk-demo kernelseek steer attention-cpu")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--agent", choices=tuple(EXAMPLES), default="native")
    r.add_argument("--out", type=Path)
    r.add_argument("--budget", type=float, default=0.5)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=8765)
    args = ap.parse_args()
    if args.cmd == "record":
        print(record(args.out or EXAMPLES[args.agent], agent=args.agent, budget_s=args.budget))
    else:
        serve(args.port)


if __name__ == "__main__":
    main()
