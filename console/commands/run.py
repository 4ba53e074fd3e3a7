"""`kernelseek run`: the agent on a task, headless, one line per transcript row.

The session directory is the interface: `kernelseek steer` spawns this command detached and
attaches a console to the session; the console may quit and re-attach while this runs on.
Printing never blocks the runner (a queue and a thread) and a closed stdout only stops the
printing, never the session. The lines are the console's rows (`console.model`, cleaned by
`console.safe_text`) and everything this process writes to stdout and stderr (runner.log under
`steer`) passes the same cleaner: no escape sequence from a tool's output reaches a terminal.

Started from the command line it first re-execs itself without the credentials in its
environment (agent/keys.py), and refuses to start where no sandbox can be made unless
`--unsafe-no-sandbox` says otherwise. Exit status: 0 goal met, 3 a limit ended the session, 130 stopped
(SIGTERM or Ctrl-C), 1 the session ended on an error, 2 bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import io
import os
import queue
import sys
import threading
import time

from console.commands import add_sessions_dir
from console.commands.launch_options import (add_agent_arguments, add_launch_arguments, check_launch_arguments,
                                             check_slurm_flags, resume_launcher)

HELP = "run the agent on a task headless, printing the console's rows, one line each"

EXIT_CODES = {"goal_met": 0, "max_turns": 3, "max_cost": 3, "max_hours": 3, "stopped": 130, "error": 1}


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_agent_arguments(p)
    p.add_argument("--quiet", action="store_true", help="print nothing; the session log has everything")
    add_sessions_dir(p)
    add_launch_arguments(p)


class _UsageError(Exception):
    exit_code = 2


def run(args: argparse.Namespace) -> int:
    from agent.config import load_config
    from agent.keys import lent_environment, receive, reexec_without, split_environment

    if args.resume and args.task:
        raise _UsageError("give TASK to start a session or --resume SESSION to continue one, not both")
    if not args.resume and not args.task:
        raise _UsageError("TASK is required (or --resume SESSION)")
    check_launch_arguments(args)
    from sessions.layout import resolve_session

    on = resume_launcher(args, resolve_session(args.resume, args.sessions_dir)) if args.resume else args.on
    check_slurm_flags(args, on)
    if on == "slurm" or args.count > 1 or args.arms:  # not in this process: through a launcher
        return _launch_elsewhere(args, on or "local")
    config = load_config(args.config, model=args.model, max_turns=args.max_turns, max_cost=args.max_cost,
                         max_hours=args.max_hours, autopilot=True if args.autopilot else None,
                         grace_s=args.grace if args.autopilot else None,
                         unsafe_no_sandbox=True if args.unsafe_no_sandbox else None)
    carried = receive()
    if carried is None:
        split = split_environment(os.environ, config.secret_env)
        argv = getattr(args, "command_line", None)
        if argv is not None:  # a real command: start again without the credentials in the environment
            reexec_without(split, argv)
        carried = split.secret  # called in-process (tests): the variables are dropped below instead

    from agent.agents import make_agent
    from agent.host import SessionHost, config_for_resume, install_signal_handlers, session_agent
    from agent.model import client_secrets, make_client
    from agent.secrets import scrub_process_environment
    from agent.shell import tool_sandbox
    from evaluator.sandbox import not_dumpable
    from sessions.layout import resolve_session

    with lent_environment(carried):
        client = make_client(config)  # a missing key is one line here, before any session exists
    secrets = sorted(set(split_environment(carried).values()) | set(client_secrets(client)), key=len, reverse=True)
    scrub_process_environment(secrets)
    not_dumpable()  # our /proc files and memory closed to the user's other processes
    sandbox = tool_sandbox(config)  # no sandbox and no --unsafe-no-sandbox: one line, no session
    inert_output()
    placement = pin_gpu(args)  # cuda: a free GPU of this node, or one clear line and no session
    agent_name = args.agent
    if args.resume:
        paths = resolve_session(args.resume, args.sessions_dir)
        config = config_for_resume(config, paths.events, model_given=bool(args.model))
        agent_name = session_agent(paths.root) or agent_name  # a session goes on with the agent it began with
    agent = make_agent(agent_name, config=config, client=client, secrets=secrets)
    printer = None if args.quiet else EventPrinter()
    on_event = printer.put if printer else None
    common = dict(agent=agent, config=config, secrets=secrets, sandbox=sandbox, sessions_dir=args.sessions_dir,
                  on_event=on_event)
    if args.resume:
        host = SessionHost.resume(args.resume, group=args.group, **common)
    else:
        host = SessionHost.create(args.task, session_dir=args.session, group=args.group, **common)
    install_signal_handlers(host)
    if placement is not None and placement.claim is not None:
        placement.claim.note(what=f"session {host.paths.root.name}", session=str(host.paths.root))
    try:
        reason = host.run()
    finally:
        if printer:
            printer.close()
    return EXIT_CODES.get(reason, 1)


def pin_gpu(args: argparse.Namespace):
    """Pin this runner to a GPU when its task runs on one (agent.launchers.place); the placement."""
    from agent.launchers.place import pin_runner
    from evaluator import TaskError, load_task
    from kernels import TASKS_DIR
    from sessions.layout import first_event, resolve_session

    prefer, task = None, args.task
    if args.resume:
        start = first_event(resolve_session(args.resume, args.sessions_dir).events)
        task = start.get("task_dir") or start.get("task")
        prefer = ((start.get("place") or {}).get("gpu") or {}).get("uuid")  # the GPU it had
    if not task:
        return None
    try:
        backend = load_task(task, TASKS_DIR).backend
    except TaskError:
        return None  # the session host says what is wrong with the task
    return pin_runner(backend, getattr(args, "gpu", None), prefer=prefer,
                      what=f"session {args.session or args.resume or task} (starting)")


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


class InertStream(io.TextIOBase):
    """A text stream that shows control characters instead of sending them (runner.log, a
    traceback quoting a tool's output): the console's cleaner, on everything written."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, s: str) -> int:
        from console.safe_text import clean

        self._stream.write(clean(s))
        return len(s)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()


def inert_output() -> None:
    if not isinstance(sys.stdout, InertStream):
        sys.stdout = InertStream(sys.stdout)
    if not isinstance(sys.stderr, InertStream):
        sys.stderr = InertStream(sys.stderr)


class EventPrinter:
    """Prints the console's rows, one line each, from a thread; drops lines rather than block
    the runner."""

    def __init__(self, maxsize: int = 10000) -> None:
        from rich.console import Console

        self.console = Console(highlight=False, soft_wrap=True, file=sys.stdout)
        self.lines = EventLines(self.console.width if self.console.is_terminal else 160)
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
                for line in self.lines.add(ev):
                    self.console.print(line, markup=False, highlight=False, emoji=False)
            except (OSError, ValueError):  # a closed or broken stdout: the log still has it all
                self.broken = True


class EventLines:
    """Events as the console's transcript rows, one printed line per row: an event that opens a
    row prints it; one that finishes a row (a tool's result, an evaluation's verdict) prints the
    row again, finished. The text is the console's (`console.model` titles, cleaned by
    `console.safe_text`), so nothing a tool printed reaches the terminal as a control sequence."""

    def __init__(self, width: int = 160) -> None:
        from console.model import SessionModel

        self.width = max(40, width)
        self.model = SessionModel(_NoBodies())

    def add(self, ev: dict) -> list[str]:
        from console.model import EVAL, TOOL

        model = self.model
        model.store.hold(ev)
        n_before = len(model.rows)
        added, changed = model.add([ev])
        rows = list(range(n_before, n_before + added))
        rows += sorted(r for r in changed if model.rows[r].kind in (TOOL, EVAL) and model.rows[r].ei2 >= 0)
        out = [self.line(model.rows[r], ev) for r in rows]
        if ev.get("type") == "session_end":
            s = model.summary
            out.append(self._stamp(ev) + f"  tokens in {s.input_tokens} out {s.output_tokens} · "
                       f"${s.cost_usd:.4f}" + (f" · best {s.best_geomean:.3f}×" if s.best_geomean else ""))
        return out

    def _stamp(self, ev: dict) -> str:
        return f"{time.strftime('%H:%M:%S', time.localtime(ev.get('t') or 0))} #{ev.get('seq', '?'):<5}"

    def line(self, row, ev: dict) -> str:
        from console.render import plain_line

        # the clock and seq stand in for the console's elapsed-time gutter
        head = self._stamp(ev) + " "
        return head + plain_line(row, self.width - len(head))


class _NoBodies:
    """The transcript model's store, counting events and keeping only the latest (the printer
    never expands a row; a tool call's row makes its title from its event when printed, which
    is when that event is the latest)."""

    def __init__(self) -> None:
        self.n = 0
        self.latest: dict | None = None

    def hold(self, ev: dict) -> None:
        self.n += 1
        self.latest = ev

    def __len__(self) -> int:
        return self.n

    def get(self, index: int) -> dict:
        if index == self.n - 1 and self.latest is not None:
            return self.latest
        raise IndexError("the printer keeps no event bodies but the latest")
