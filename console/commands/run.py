"""`kernelseek run`: the agent on a task, headless, one line per event.

The session directory is the interface: `kernelseek steer` spawns this command detached and
attaches a console to the session; the console may quit and re-attach while this runs on.
Printing never blocks the runner (a queue and a thread) and a closed stdout only stops the
printing, never the session. Exit status: 0 goal met, 3 a limit ended the session, 130 stopped
(SIGTERM or Ctrl-C), 1 the session ended on an error, 2 bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import json
import queue
import threading
import time

from console.commands import add_sessions_dir
from console.commands.launch_options import (add_launch_arguments, check_launch_arguments, check_slurm_flags,
                                             resume_launcher)

HELP = "run the agent on a task headless, printing one line per event"

EXIT_CODES = {"goal_met": 0, "max_turns": 3, "max_cost": 3, "max_hours": 3, "stopped": 130, "error": 1}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", metavar="TASK", nargs="?", help="task name or folder (omit with --resume)")
    p.add_argument("--session", metavar="DIR", help="session directory to create")
    p.add_argument("--resume", metavar="SESSION", help="rebuild the conversation from SESSION's log and carry on")
    p.add_argument("--model", metavar="M", help="model (default: $KERNELSEEK_MODEL or the config default)")
    p.add_argument("--autopilot", action="store_true", help="send the top bank question at each decision point")
    p.add_argument("--grace", metavar="SECONDS", type=float, default=0.0,
                   help="with --autopilot, wait this long for a human to answer first")
    p.add_argument("--max-turns", metavar="N", type=int, help="end the session after N model turns")
    p.add_argument("--max-cost", metavar="USD", type=float, help="end the session past this cost")
    p.add_argument("--max-hours", metavar="H", type=float, help="end the session past this many hours")
    p.add_argument("--config", metavar="FILE",
                   help="agent settings (YAML; default $KERNELSEEK_CONFIG or $KERNELSEEK_HOME/agent.yaml)")
    p.add_argument("--quiet", action="store_true", help="print nothing; the session log has everything")
    add_sessions_dir(p)
    add_launch_arguments(p)


class _UsageError(Exception):
    exit_code = 2


def run(args: argparse.Namespace) -> int:
    from agent.config import load_config
    from agent.model import ModelClient, client_secrets, make_client
    from agent.runner import Runner, config_for_resume, install_signal_handlers
    from agent.secrets import scrub_process_environment, secret_values
    from sessions.layout import resolve_session

    if args.resume and args.task:
        raise _UsageError("give TASK to start a session or --resume SESSION to continue one, not both")
    if not args.resume and not args.task:
        raise _UsageError("TASK is required (or --resume SESSION)")
    check_launch_arguments(args)
    on = resume_launcher(args, resolve_session(args.resume, args.sessions_dir)) if args.resume else args.on
    check_slurm_flags(args, on)
    if on == "slurm" or args.count > 1 or args.arms:  # not in this process: through a launcher
        return _launch_elsewhere(args, on or "local")
    config = load_config(args.config, model=args.model, max_turns=args.max_turns, max_cost=args.max_cost,
                         max_hours=args.max_hours, autopilot=True if args.autopilot else None,
                         grace_s=args.grace if args.autopilot else None)
    if args.resume:
        paths = resolve_session(args.resume, args.sessions_dir)
        config = config_for_resume(config, paths.events, model_given=bool(args.model))
    client = make_client(config)  # a missing key is one line here, before any session exists
    secrets = secret_values(extra=client_secrets(client))
    scrub_process_environment(secrets)  # nothing the runner starts inherits a credential
    printer = None if args.quiet else EventPrinter()
    on_event = printer.put if printer else None
    model = ModelClient(client, config)
    if args.resume:
        runner = Runner.resume(args.resume, config=config, model=model, secrets=secrets,
                               sessions_dir=args.sessions_dir, on_event=on_event, group=args.group)
    else:
        runner = Runner.create(args.task, config=config, model=model, secrets=secrets,
                               session_dir=args.session, sessions_dir=args.sessions_dir, on_event=on_event,
                               group=args.group)
    install_signal_handlers(runner)
    try:
        reason = runner.run()
    finally:
        if printer:
            printer.close()
    return EXIT_CODES.get(reason, 1)


def _launch_elsewhere(args: argparse.Namespace, on: str) -> int:
    """Start the runner(s) detached or as a batch job, print where, and return."""
    from agent.config import load_config
    from agent.model import make_client
    from console.commands.launching import describe, print_launched, resume, start_new
    from sessions.layout import resolve_session

    make_client(load_config(args.config))  # a missing key: one line, before any session exists
    if args.resume:
        paths = resolve_session(args.resume, args.sessions_dir)
        if paths.is_running():
            raise _UsageError(f"{paths.root} is running already")
        handle, _ = resume(args, paths, on)
        print(f"{paths.root}  {describe(handle)}  (resumed)")
        return 0
    print_launched(start_new(args, on))
    return 0


class EventPrinter:
    """Prints one line per event from a thread; drops lines rather than block the runner."""

    def __init__(self, maxsize: int = 10000) -> None:
        from rich.console import Console

        self.console = Console(highlight=False, soft_wrap=True)
        self.queue: queue.Queue = queue.Queue(maxsize)
        self.dropped = 0
        self.broken = False
        self.thread = threading.Thread(target=self._run, name="printer", daemon=True)
        self.thread.start()

    def put(self, ev: dict) -> None:
        if self.broken or ev.get("type") == "assistant_delta":
            return
        try:
            self.queue.put_nowait(ev)
        except queue.Full:
            self.dropped += 1

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(5.0)

    def _run(self) -> None:
        while True:
            ev = self.queue.get()
            if ev is None:
                return
            if self.broken:
                continue
            try:
                self.console.print(format_event(ev), markup=False)
            except (OSError, ValueError):  # a closed or broken stdout: the log still has it all
                self.broken = True


def _one_line(text: object, limit: int = 160) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _num(x: object, spec: str = ".3f") -> str:
    return format(x, spec) if isinstance(x, (int, float)) and not isinstance(x, bool) else "-"


def format_event(ev: dict) -> str:
    """One line for one event."""
    kind = ev.get("type", "?")
    stamp = time.strftime("%H:%M:%S", time.localtime(ev.get("t") or 0))
    head = f"{stamp} #{ev.get('seq', '?'):<5} {kind:<15}"
    body = _body(kind, ev)
    return f"{head} {body}".rstrip()


def _body(kind: str, ev: dict) -> str:
    if kind == "session_start":
        return (f"{ev.get('task')} · model {ev.get('model')} · {ev.get('device')} · "
                f"goal geomean >= {ev.get('goal', {}).get('min_geomean')}")
    if kind == "session_resume":
        return f"resumed after seq {ev.get('from_seq')} (pid {ev.get('pid')})"
    if kind == "assistant_text":
        return _one_line(ev.get("text")) + (" [interrupted]" if ev.get("interrupted") else "")
    if kind == "thinking":
        return f"({len(ev.get('text') or '')} chars of thinking)"
    if kind == "tool_call":
        inp = ev.get("input") or {}
        arg = inp.get("command") or inp.get("path") or ""
        if ev.get("name") == "evaluate":
            arg = " ".join(f"{k}={v}" for k, v in inp.items())
        return f"{ev.get('name')}: {_one_line(arg, 140)}"
    if kind == "tool_result":
        lines = (ev.get("output") or "").strip().splitlines()
        last = lines[-1] if lines else ""
        status = "interrupted" if ev.get("interrupted") else ("error" if ev.get("is_error") else "ok")
        return f"{ev.get('name', '')} {status} in {_num(ev.get('duration_s'), '.1f')} s · {len(lines)} lines · {_one_line(last, 100)}"
    if kind == "eval_start":
        return f"{ev.get('candidate')} ({'quick' if ev.get('quick') else 'full'}, {ev.get('scenarios')} scenarios)"
    if kind == "eval_progress":
        what = ev.get("scenario") or ev.get("role") or ""
        return f"{ev.get('done')}/{ev.get('total')} {ev.get('phase') or ''} {what}".rstrip()
    if kind == "eval_result":
        s = ev.get("summary") or {}
        if ev.get("interrupted"):
            return "interrupted"
        verdict = "GOAL MET" if s.get("goal_met") else "goal not met"
        return (f"geomean {_num(s.get('geomean'))} · passed {s.get('passed')}/{s.get('total')} · "
                f"best {_num(s.get('best_geomean'))} · {verdict} · {ev.get('report')}")
    if kind == "decision_point":
        top = (ev.get("suggestions") or [{}])[0].get("id", "")
        return f"{ev.get('kind')}: {_one_line(ev.get('evidence'), 110)}" + (f" → {top}" if top else "")
    if kind == "human_message":
        return f"[{ev.get('source')}{'/' + ev['bank_id'] if ev.get('bank_id') else ''}] {_one_line(ev.get('text'), 130)}"
    if kind == "stop_check":
        if ev.get("goal_met") and not ev.get("blocked"):
            return "goal met: the session ends"
        return "blocked: " + _one_line("; ".join(ev.get("reasons") or []), 140)
    if kind == "usage":
        return (f"in {ev.get('input_tokens')} (+{ev.get('cache_read_tokens')} cached, "
                f"{ev.get('cache_write_tokens')} written) out {ev.get('output_tokens')} · "
                f"${_num(ev.get('cost_usd'), '.4f')} · total ${_num(ev.get('total_cost_usd'), '.4f')}")
    if kind == "error":
        return ("FATAL " if ev.get("fatal") else "") + _one_line(ev.get("message"), 150)
    if kind == "session_end":
        return f"{ev.get('reason')}" + (f" · {ev['detail']}" if ev.get("detail") else "")
    if kind in ("runner_note", "compaction"):
        return _one_line(ev.get("text") or {k: v for k, v in ev.items() if k not in ("v", "seq", "t", "type")})
    rest = {k: v for k, v in ev.items() if k not in ("v", "seq", "t", "type")}
    return _one_line(json.dumps(rest, default=str), 150)
