"""One detection path for every log: the decision points a reader shows with a log's events.

A session our runner writes carries its own `decision_point` events: the runner fed every event
to the same `Detectors`, with the detector settings it recorded in `session_start.config`. A
foreign transcript (Claude Code, Codex), a session made by `kernelseek import`, or any log that
does not begin with a runner's `session_start` carries none; `DecisionAnnotator` runs the same
detectors over it as the events stream past and puts the points in among them, so a reader (the
console, live or in replay) shows what `kernelseek detect` prints for that log:

    annotator = DecisionAnnotator()
    for event in log:                      # in log order, in batches of any size
        for shown in annotator.feed(event):
            ...                            # the event itself, and decision points around it

A point arrives right after the event that raised it, except one raised by a human message about
what came before it (the end of the agent's turn, known only when the human speaks): that one
comes just before the message, where the steerer met it. Points made here carry `derived: true`
and `seq` = the seq of the event that raised them; updates of a point (a loop that grew) name it
in `updates`, as the runner's do.
"""
from __future__ import annotations

from typing import Mapping

from questions.decision import ConfigError, DetectorConfig
from questions.detectors import Detectors


def recorded_settings(first: Mapping | None) -> dict:
    """The detector settings a runner recorded in its session_start (empty when none)."""
    if not isinstance(first, Mapping) or first.get("type") != "session_start":
        return {}
    config = first.get("config")
    settings = config.get("detectors") if isinstance(config, Mapping) else None
    return dict(settings) if isinstance(settings, Mapping) else {}


def carries_points(first: Mapping | None) -> bool:
    """Whether a log that begins with this event carries its own decision points: a session our
    runner wrote does; an imported transcript (its session_start holds the import statistics) and
    a log that does not begin with a session_start do not."""
    if not isinstance(first, Mapping) or first.get("type") != "session_start":
        return False
    return "import" not in first


def config_for(first: Mapping | None, given: DetectorConfig | None = None) -> DetectorConfig:
    """The settings to detect a log with: the ones given, else the runner's recorded ones."""
    if given is not None:
        return given
    try:
        return DetectorConfig.from_mapping(recorded_settings(first))
    except ConfigError:
        return DetectorConfig()  # a log's odd settings must not stop a reader


class DecisionAnnotator:
    """Decision points in among a log's events (see the module's docstring). One per log."""

    def __init__(self, config: DetectorConfig | None = None) -> None:
        self._given = config
        self.detectors: Detectors | None = None
        self.derived: bool | None = None  # decided by the log's first event

    def feed(self, event: Mapping) -> list[dict]:
        """The event and the decision points it brings, in the order a reader shows them."""
        if self.derived is None:
            self.derived = not carries_points(event)
            if self.derived:
                self.detectors = Detectors(config_for(event, self._given))
        if not self.derived or event.get("type") == "decision_point":
            return [event]  # a runner's log shows its own points; a stray logged one is kept
        points = self.detectors.feed(event)
        if not points:
            return [event]
        seq, t = event.get("seq"), event.get("t")
        before: list[dict] = []
        after: list[dict] = []
        for dp in points:
            shown = {"v": event.get("v", 1), "seq": dp.at_seq if dp.at_seq is not None else seq, "t": t,
                     "type": "decision_point", **dp.to_event_fields(), "derived": True}
            first = (event.get("type") == "human_message" and dp.about_seq is not None
                     and isinstance(seq, int) and dp.about_seq < seq)
            (before if first else after).append(shown)
        return before + [event] + after
