"""The mining report (Markdown): what was read, the question / directive / information split,
and the question clusters ranked by the gains that followed them.
"""
from __future__ import annotations

from collections import Counter

from questions.mine.classify import LABELS


def _cell(text: str, limit: int = 110) -> str:
    t = " ".join(str(text).split()).replace("|", "\\|")
    if t[:1] in "-*+#>":
        t = "\\" + t  # not markdown's list or heading
    return t if len(t) <= limit else t[: limit - 1] + "\u2026"


def _pct(x) -> str:
    return "" if x is None else f"{x * 100:+.1f}%"


def _num(x, fmt="{:.2f}") -> str:
    return "" if x is None else fmt.format(x)


def _kinds(kinds: dict) -> str:
    return ", ".join(f"{k} {n}" for k, n in kinds.items()) if kinds else ""


def render(result, *, out_path: str | None = None, merged_into: str | None = None, examples: int = 4,
           top: int = 40) -> str:
    """The report as Markdown text."""
    msgs = result.messages
    by = result.by_label()
    lines: list[str] = ["# Mined steering questions", ""]
    skipped: Counter = Counter()
    for r in result.reads:
        skipped.update(r.skipped)
    lines.append(f"{len(msgs)} human messages from {len(result.reads)} log(s), {result.sessions} session(s); "
                 f"{len(result.clusters)} question cluster(s), {len(result.new_clusters)} new"
                 + (f", written to `{out_path}`" if out_path else "")
                 + (f" (merged into `{merged_into}`)" if merged_into else "") + ".")
    lines.append("")
    lines.append("| log | format | sessions | messages | skipped |")
    lines.append("|---|---|---:|---:|---|")
    for r in result.reads:
        sk = ", ".join(f"{k} {n}" for k, n in sorted(r.skipped.items())) or ""
        lines.append(f"| `{_cell(r.path, 80)}` | {r.format} | {r.sessions} | {len(r.messages)} | {sk} |")
    notes = [n for r in result.reads for n in r.notes]
    if notes:
        lines.append("")
        lines.extend(f"- note: {_cell(n, 200)}" for n in notes)

    # -- split ---------------------------------------------------------------------------------------
    lines += ["", "## Questions, directives, information", "",
              "Only questions become candidates. A message that supplies information (a fact or number about "
              "the hardware, an answer, a cause, a solution, a reference, pasted output) is never proposed, "
              "even when it ends in a question mark.", "",
              "| class | messages | share | why (most common) |", "|---|---:|---:|---|"]
    total = len(msgs) or 1
    for label in LABELS:
        group = by.get(label, [])
        why = Counter(r for m in group for r in m.reasons[:1])
        lines.append(f"| {label} | {len(group)} | {len(group) / total * 100:.0f}% | "
                     f"{', '.join(f'{k} {n}' for k, n in why.most_common(4))} |")
    for label in LABELS:
        group = by.get(label, [])
        if not group:
            continue
        lines += ["", f"Examples of **{label}**:", ""]
        shown = set()
        # one example for each reason first (most common reasons first), then more of the rest
        order = [r for r, _ in Counter(m.reasons[0] for m in group if m.reasons).most_common()]
        picks = [next(m for m in group if m.reasons and m.reasons[0] == r) for r in order] + group
        limit = examples + (2 if label == "information" else 0)
        for m in picks:
            key = " ".join(m.text.lower().split())[:80]
            if key in shown:
                continue
            shown.add(key)
            lines.append(f"- {_cell(m.text, 140)}" + (f"  _({', '.join(m.reasons)})_" if label != "question" else ""))
            if len(shown) >= limit:
                break

    directives = by.get("directive", [])
    if directives:
        from questions.mine.normalise import generalise, terms

        groups: dict[tuple, list] = {}
        for m in directives:
            groups.setdefault(tuple(sorted(set(terms(generalise(m.text).text)))), []).append(m)
        common = sorted(groups.values(), key=lambda g: -len(g))[:8]
        if len(common[0]) > 1:
            lines += ["", "Most frequent directives:", ""]
            for g in common:
                if len(g) < 2:
                    break
                lines.append(f"- {_cell(g[0].text, 100)} ×{len(g)}")

    # -- clusters by gain ---------------------------------------------------------------------------
    ranked = result.ranked()
    with_gain = [c for c in ranked if c.stats.get("mean_gain") is not None]
    without = [c for c in ranked if c.stats.get("mean_gain") is None]
    lines += ["", "## Question clusters ranked by the gains that followed", "",
              f"Gain: the best correct geomean over the next {result.config.window} timed evaluation(s) against "
              f"the best before the question (relative; +12% = 0.12), averaged over the askings that had "
              f"evaluations after them; ranked by that mean shrunk toward zero by how few askings it rests on "
              f"(`gain * n / (n + 3)`, as ranking does). Hit rate: askings followed by a gain of at least "
              f"{result.config.min_gain * 100:g}%. Minutes: median time from the question to that gain.", ""]
    if with_gain:
        lines.append("| # | question | asked | sessions | mean gain | hit rate | min to gain | preceded by | item |")
        lines.append("|---:|---|---:|---:|---:|---:|---:|---|---|")
        for i, c in enumerate(with_gain[:top], 1):
            s = c.stats
            item = f"= `{c.match}`" if c.match else f"`{c.id}`"
            lines.append(f"| {i} | {_cell(c.text)} | {s.get('asked', 0)} | {s.get('sessions', 0)} | "
                         f"{_pct(s.get('mean_gain'))} | {_num(s.get('hit_rate'))} | "
                         f"{_num(s.get('minutes_to_gain'), '{:.1f}')} | {_kinds(s.get('kinds', {}))} | {item} |")
        if len(with_gain) > top:
            lines.append(f"\n{len(with_gain) - top} more cluster(s) with gains are in the bank file.")
    else:
        lines.append("No question was followed by a timed evaluation in these logs, so none has a gain yet.")
    if without:
        lines += ["", "### Asked with no gain measured after (by how often)", "",
                  "No timed evaluation followed these, or none with a baseline to compare with (a foreign "
                  "transcript's first inferred figure).", "",
                  "| question | asked | sessions | preceded by | item |", "|---|---:|---:|---|---|"]
        for c in sorted(without, key=lambda c: (-c.stats.get("asked", 0), c.id))[:top]:
            s = c.stats
            item = f"= `{c.match}`" if c.match else f"`{c.id}`"
            lines.append(f"| {_cell(c.text)} | {s.get('asked', 0)} | {s.get('sessions', 0)} | "
                         f"{_kinds(s.get('kinds', {}))} | {item} |")
        if len(without) > top:
            lines.append(f"\n{len(without) - top} more.")

    matched = [c for c in result.clusters if c.match]
    if matched:
        lines += ["", "## Clusters that match existing bank items", "",
                  "These are not written as new candidates; with `--merge` their statistics update the item.", "",
                  "| item | mined representative | asked | mean gain |", "|---|---|---:|---:|"]
        for c in sorted(matched, key=lambda c: c.match or ""):
            lines.append(f"| `{c.match}` | {_cell(c.text, 90)} | {c.stats.get('asked', 0)} | "
                         f"{_pct(c.stats.get('mean_gain'))} |")

    if result.screening is not None:
        lines += _model_section("Read by the model", result.screening, "which messages are questions",
                                "rules' labels stand", _screened_lines(result.screening, top))
    if result.regrouping is not None:
        lines += _model_section("Grouped by the model", result.regrouping, "to regroup the question wordings",
                                "rules' grouping stands", _regrouped_lines(result, top, examples))

    multi = [c for c in result.clusters if len(c.variants) > 1][:12]
    if multi:
        lines += ["", "## How alike questions met (largest clusters)", ""]
        for c in multi:
            lines.append(f"- **{_cell(c.text, 120)}** ({c.stats.get('asked', 0)} askings, "
                         f"{len(c.variants)} wordings)")
            for text, n in c.variants[:examples]:
                lines.append(f"  - {_cell(text, 120)}" + (f" ×{n}" if n > 1 else ""))
    lines.append("")
    return "\n".join(lines)


def _model_section(title: str, note, asked_for: str, fallback: str, body: list[str]) -> list[str]:
    """A section on one of the model's opinions: what it did (`body`), or that it gave no usable
    answer, then its notes."""
    lines = ["", f"## {title}", ""]
    if note.ok:
        lines += body
    else:
        lines.append(f"Asked {_cell(note.by, 80)} {asked_for}; no usable answer, so the {fallback}.")
    return lines + [f"- note: {_cell(n, 200)}" for n in note.notes]


def _screened_lines(sc, top: int) -> list[str]:
    if not sc.shown:
        return []  # (its note says why)
    lines: list[str] = []
    lines.append(f"{_cell(sc.by, 80)} read {sc.shown} distinct message(s) and said which are questions: "
                 f"{len(sc.became_questions)} the rules had not proposed became questions, and "
                 f"{len(sc.no_longer_questions)} the rules had proposed are not ({sc.relabelled} other "
                 f"relabelling(s) propose nothing). Read these: the model's judgement, not a rule, moved "
                 f"them. Questions sent from the bank and messages handing over code, output, files or a "
                 f"reference were not shown to it.")
    if sc.dropped or sc.left_out:
        lines.append("")
        lines.append(f"Checked by code: {sc.dropped} label(s) in the answer named no message it was shown "
                     f"(or one twice, or no known kind) and were dropped; {sc.left_out} message(s) it left "
                     f"out kept the rules' label.")
    if sc.alone:
        lines.append("")
        lines.append(f"{len(sc.alone)} more it called questions stand alone: no question the rules found "
                     f"asks the same, so they are not proposed and keep the rules' label (the model finds "
                     f"askings the rules lost; alone it would make a question of any request or plan).")
    for title, moved in (("Became questions (the rules' label)", sc.became_questions),
                         ("No longer questions (the model's label)", sc.no_longer_questions),
                         ("Called questions, standing alone: not proposed (the rules' label)", sc.alone)):
        if moved:
            lines += ["", f"{title}:", ""]
            lines.extend(f"- {_cell(t, 160)} ({label})" for t, label in moved[:top])
            if len(moved) > top:
                lines.append(f"- ... {len(moved) - top} more")
    return lines


def _regrouped_lines(result, top: int, examples: int) -> list[str]:
    rg = result.regrouping
    lines: list[str] = []
    lines.append(f"{_cell(rg.by, 80)} regrouped the question wordings by meaning: the rules' "
                 f"{rg.rule_candidates} candidate(s) became {rg.candidates}; {rg.joined} were made from "
                 f"askings of several of the rules' candidates, and {rg.parted} of the rules' candidates "
                 f"had their askings parted. Read these before adding them to a bank: the model's "
                 f"judgement, not a rule, put them together.")
    if rg.dropped or rg.kept_by_rules or rg.refused:
        lines.append("")
        lines.append(f"Checked by code: {rg.dropped} id(s) in the answer named no wording it was shown (or "
                     f"one twice) and were dropped; {rg.kept_by_rules} wording(s) it left out kept the "
                     f"rules' grouping; {rg.refused} group(s) joining askings sent from different bank "
                     f"items were refused.")
    joined = [c for c in result.clusters if c.rules_made]
    if joined:
        lines.append("")
        for c in joined[:top]:
            said = f" — the model: _{_cell(c.regroup_label, 80)}_" if c.regroup_label else ""
            lines.append(f"- **{_cell(c.text, 120)}** (`{c.id}`){said}; from the rules' candidates:")
            lines.extend(f"  - {_cell(t, 120)}" for t in c.rules_made[:examples + 2])
    return lines
