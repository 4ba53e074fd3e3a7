"""The event schema: what one line of a session's `events.jsonl` may say.

Every event is one JSON object on one line::

    {"v": 1, "seq": 17, "t": 1764441600.25, "type": "tool_call", ...fields}

`v` is the schema version, `seq` counts from 0 in the order the writer appended, `t` is unix
seconds. The fields of each type are below. Readers keep events of unknown types (and unknown
fields) untouched: a newer writer must never make an older console drop data.

Events are plain dicts all the way through (fast to parse, trivial to extend); the constants
and `validate_event` here are the contract.
"""
from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class EventType:
    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    doc: str = ""
    fsync: bool = False  # durable before the writer returns


# where an event came from inside a foreign transcript's tree of agents (subagents, sidechains)
_THREAD = ("sidechain", "agent_id", "parent_tool_id")


def _t(name: str, required: tuple[str, ...], optional: tuple[str, ...] = (), doc: str = "",
       fsync: bool = False) -> EventType:
    return EventType(name, required, optional, doc, fsync)


EVENT_TYPES: dict[str, EventType] = {
    t.name: t
    for t in (
        _t("session_start", ("task",),
           ("goal", "agent", "model", "host", "device", "arch", "capabilities", "workspace",
            "source", "recorded_by", "note", "config", "session_id", "title", "git_branch",
            "models", "import", "candidate", "task_dir", "prompt", "sandbox", "pid", "sandboxed",
            "agent_version", "tools", "mode", "transcript", "gate", "place"),
           "A session began. agent: kernelseek | claude-code | codex | scripted. source: the "
           "transcript a session was imported from. recorded_by: what produced the log "
           "(kernelseek run | kernelseek attach | an importer). sandbox: what confines the agent's "
           "tools (it starts with 'unsandboxed' when nothing does; sandboxed says the same as a bool). "
           "agent_version, session_id: the agent's own (Claude Code). mode: attach for a session the "
           "user runs themselves, followed from its transcript. place: where the runner runs (host, "
           "pid; under Slurm the job id, node, partition and GPUs).",
           fsync=True),
        _t("assistant_delta", ("block", "text"), ("turn", "attempt", "kind"),
           "A streamed chunk of assistant text (coalesced), for the live view. The whole block "
           "follows as assistant_text with the same block id; replay and detectors use that."),
        _t("assistant_text", ("text",), ("block", "turn", "attempt", "phase", "interrupted") + _THREAD,
           "One whole block of assistant text."),
        _t("thinking", ("text",), ("block", "turn", "attempt", "redacted", "signature", "data") + _THREAD,
           "One block of model thinking."),
        _t("tool_call", ("id", "name", "input"), ("block", "turn", "attempt", "status") + _THREAD,
           "The agent called a tool. input is the tool's arguments (an object)."),
        _t("tool_result", ("id", "output"),
           ("is_error", "duration_s", "truncated", "name", "interrupted", "exit_code", "timed_out",
            "eval_seq") + _THREAD,
           "A tool call's result. output is text as the agent saw it."),
        _t("eval_start", (), ("candidate", "candidate_hash", "quick", "only", "scenarios", "n",
                              "purpose", "call_id"),
           "An evaluation began (the console shows a progress bar until eval_result)."),
        _t("eval_progress", ("done", "total"), ("scenario", "phase", "n"),
           "An evaluation finished one more scenario."),
        _t("eval_result", ("summary",),
           ("report", "n", "inferred", "candidate_hash", "call_id", "evidence", "purpose",
            "duration_s", "interrupted") + _THREAD,
           "An evaluation finished. summary: geomean, all_correct, passed, total, best_geomean, "
           "goal_met, min_ratio, fast_1, flags, failing, ... report: file under evals/. "
           "inferred: true when extracted from a foreign transcript's tool output.",
           fsync=True),
        _t("decision_point", ("kind", "evidence"),
           ("about_seq", "suggestions", "detail", "strength", "id", "reasons", "count", "updates", "derived"),
           "A detector fired. kind: start | stall | limit_claim | completion_claim | "
           "suspicious_win | correctness_break | regression | loop | agent_question | risky_action "
           "(the strongest reason). suggestions: ranked bank items [{id, text}]. id: the point's "
           "name; reasons: [{kind, evidence, strength}] when several kinds fired on one moment; "
           "count: how often a loop repeated or a stall went on; updates: the id of an earlier "
           "point this one updates (a loop that grew), which then shows the whole point again. derived: "
           "made by a reader's detectors for a log that carried none (never written by a runner)."),
        _t("human_message", ("text",),
           ("source", "bank_id", "decision_point", "inbox_id", "kind", "context", "author",
            "posted_t", "via", "command", "answers", "tool_id", "declined", "reason", "images",
            "goal", "goal_changed", "control_problems", "cancelled"),
           "A human (or autopilot) message reached the agent. source: bank | free | autopilot | "
           "imported. via/command/answers: how an imported message arrived (slash_command, "
           "ask_user_question, ...). inbox_id acknowledges the inbox line it came from. kind: message | "
           "interrupt | command. context: {\"decision_point\": {kind, evidence, seq} of the open one, "
           "\"eval\": the latest eval_result summary} — copied to the steering log.",
           fsync=True),
        _t("stop_check", ("goal_met",),
           ("reasons", "blocked", "eval_seq", "summary", "feedback", "goal", "reused",
            "pending_messages"),
           "The agent ended its turn; the runner checked the goal in code. blocked: the stop was "
           "refused and the session goes on."),
        _t("usage", (), ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
                         "cost_usd", "total_cost_usd", "total_tokens", "model", "turn", "attempt",
                         "stop_reason", "price_family", "request_id", "message_id"),
           "Tokens and cost of one model request (totals so far in total_*)."),
        _t("error", ("message",), ("where", "fatal", "detail", "attempt", "status", "retry_in_s", "turn"),
           "Something went wrong (model retries carry attempt, status, retry_in_s)."),
        _t("runner_note", ("text",), (),
           "Words the runner added to the conversation (e.g. after a reply cut at max_tokens)."),
        _t("session_resume", (), ("from_seq", "previous_end", "unanswered_tool_calls", "model", "pid",
                                  "sandbox", "sandboxed", "agent_version", "session_id", "redelivered",
                                  "mode", "transcript", "gate", "host", "place", "voided_stops"),
           "`kernelseek run --resume` took the session over after a crash or a stop (or an attach "
           "came back to it). redelivered: acknowledged messages handed to the agent again because "
           "its own transcript did not hold them. place: where the runner now runs (as in "
           "session_start). voided_stops: inbox ids of stop requests made before this resume (they "
           "no longer apply)."),
        _t("compaction", ("text",), ("trigger", "pre_tokens", "replaced_items") + _THREAD,
           "The conversation was compacted (summarised) to fit the context window."),
        _t("session_end", ("reason",), ("detail", "summary", "by", "inbox_id"),
           "The session ended. reason: goal_met | max_turns | max_cost | max_hours | stopped | "
           "error | completed | ... by: stop_request (a `kernelseek stop` through the inbox, whose "
           "line inbox_id acknowledges) | signal (SIGTERM or Ctrl-C: a scheduler's cancel or time "
           "limit looks the same from inside).", fsync=True),
    )
}

FSYNC_TYPES: frozenset[str] = frozenset(t.name for t in EVENT_TYPES.values() if t.fsync)

DECISION_KINDS: tuple[str, ...] = (
    "start", "stall", "limit_claim", "completion_claim", "suspicious_win",
    "correctness_break", "regression", "loop", "agent_question", "risky_action",
)

HUMAN_SOURCES: tuple[str, ...] = ("bank", "free", "autopilot", "imported")


@dataclass
class EventProblem:
    """Why an event does not fit the schema (reported, never fatal to a reader)."""

    field: str
    message: str


def validate_event(event: object) -> list[EventProblem]:
    """Check one event against the schema. Unknown types are fine (kept, shown generically)."""
    if not isinstance(event, dict):
        return [EventProblem("", "an event is a JSON object")]
    problems: list[EventProblem] = []
    kind = event.get("type")
    if not isinstance(kind, str) or not kind:
        problems.append(EventProblem("type", "missing or not a string"))
        return problems
    seq = event.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        problems.append(EventProblem("seq", "missing or not a non-negative integer"))
    t = event.get("t")
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        problems.append(EventProblem("t", "missing or not a number"))
    spec = EVENT_TYPES.get(kind)
    if spec is not None:
        for name in spec.required:
            if name not in event:
                problems.append(EventProblem(name, f"required by {kind}"))
    return problems
