"""Reading the hand labels of real transcripts: one YAML file per transcript (see docs/questions.md).

A labels file names its transcript (relative to a transcripts root), the part of the split it
belongs to, and one entry per moment::

    transcript: claude-code/vsla-cuda-gpu-benchmark-steering.jsonl
    part: tune
    moments:
    - {seq: 387, act: challenge, moment: working, text: "What do you mean", why: "..."}

`seq` is the importer's seq of the human message (or, for `act: missed`, of the agent event that
deserved a question); `text` is how the event's text begins, so a label is found again when the
importer's numbering moves. Every human message of the transcript must carry a label.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from sessions.yamlfile import YamlFileError, parse_yaml, yaml_text

#: What the human did. The first four are interventions; `answer` answers what the agent asked;
#: `next` moves on after finished work (or relays something from outside); `other` is neither
#: (the opening prompt, slash commands, repeats, the interrupt that opens the next message);
#: `missed` marks an agent moment that deserved a question that no one asked.
INTERVENTIONS: tuple[str, ...] = ("redirect", "challenge", "correct", "stop")
ACTS: tuple[str, ...] = INTERVENTIONS + ("answer", "next", "other", "missed")
MOMENTS: tuple[str, ...] = ("start", "asked", "finished", "working", "idle")
PARTS: tuple[str, ...] = ("tune", "score")


class LabelsError(Exception):
    """A labels file cannot be read as asked. Printed as one line by the CLI."""

    exit_code = 2


@dataclass(frozen=True)
class Label:
    seq: int
    act: str
    text: str
    why: str = ""
    moment: str = ""
    line: int = 0  # where it is in its file (for messages)

    @property
    def intervention(self) -> bool:
        return self.act in INTERVENTIONS


@dataclass
class LabelFile:
    path: Path
    transcript: str  # relative to the transcripts root
    part: str
    labels: list[Label] = field(default_factory=list)

    @property
    def stem(self) -> str:
        return self.path.stem


def read_label_file(path: str | os.PathLike) -> LabelFile:
    p = Path(path)
    try:
        text = yaml_text(p)
        root = parse_yaml(text, p, nodes=True)  # the nodes give each moment's line
        data = parse_yaml(text, p)
    except YamlFileError as exc:
        raise LabelsError(str(exc)) from None
    if not isinstance(data, dict):
        raise LabelsError(f"{p}: a labels file is a mapping with transcript, part and moments")
    transcript, part, moments = data.get("transcript"), data.get("part"), data.get("moments")
    if not isinstance(transcript, str) or not transcript:
        raise LabelsError(f"{p}: 'transcript' (the transcript's path under the transcripts root) is missing")
    if part not in PARTS:
        raise LabelsError(f"{p}: 'part' must be one of {', '.join(PARTS)}, not {part!r}")
    if not isinstance(moments, list):
        raise LabelsError(f"{p}: 'moments' must be a list")
    lines = _item_lines(root)
    out = LabelFile(p, transcript, part)
    seen: dict[int, int] = {}
    for i, item in enumerate(moments):
        line = lines[i] if i < len(lines) else 0
        where = f"{p}:{line}" if line else f"{p}: moment {i + 1}"
        if not isinstance(item, dict):
            raise LabelsError(f"{where}: a moment is a mapping (seq, act, text, why)")
        unknown = set(item) - {"seq", "act", "text", "why", "moment"}
        if unknown:
            raise LabelsError(f"{where}: unknown field {sorted(unknown)[0]!r}")
        seq, act, txt = item.get("seq"), item.get("act"), item.get("text")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise LabelsError(f"{where}: 'seq' must be a whole number")
        if act not in ACTS:
            raise LabelsError(f"{where}: 'act' must be one of {', '.join(ACTS)}, not {act!r}")
        if not isinstance(txt, str) or not txt.strip():
            raise LabelsError(f"{where}: 'text' (how the event's text begins) is missing")
        moment = item.get("moment", "")
        if moment and moment not in MOMENTS:
            raise LabelsError(f"{where}: 'moment' must be one of {', '.join(MOMENTS)}, not {moment!r}")
        if seq in seen:
            raise LabelsError(f"{where}: seq {seq} is labelled twice (first at line {seen[seq]})")
        seen[seq] = line
        out.labels.append(Label(seq, act, txt, str(item.get("why") or ""), str(moment or ""), line))
    return out


def _item_lines(root) -> list[int]:
    """1-based line of each item of the `moments` list (from YAML's node marks)."""
    try:
        for key, value in root.value:
            if getattr(key, "value", None) == "moments":
                return [node.start_mark.line + 1 for node in value.value]
    except (AttributeError, TypeError, ValueError):
        pass
    return []


def read_labels(directory: str | os.PathLike, part: str | None = None) -> list[LabelFile]:
    """Every labels file (*.yaml) in a folder, sorted by name; only one part's when asked."""
    d = Path(directory).expanduser()
    if not d.is_dir():
        raise LabelsError(f"{d}: no such labels folder")
    if part is not None and part not in PARTS:
        raise LabelsError(f"unknown part {part!r} (known: {', '.join(PARTS)})")
    files = [read_label_file(p) for p in sorted(d.glob("*.yaml"))]
    if not files:
        raise LabelsError(f"{d}: no labels files (*.yaml) in it")
    return [f for f in files if part is None or f.part == part]
