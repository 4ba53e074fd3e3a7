"""The question bank as the console uses it: entries to browse and filter, live ranking.

A thin adapter over `questions` (`load_bank()`, `rank(decision_point, bank, context)`,
`context_from_events`): a bank file that does not load yields an empty bank with a one-line
reason, and a ranking that fails yields none, never an exception in the UI.
"""
from __future__ import annotations

from dataclasses import dataclass

from console.safe_text import clean_line


@dataclass(frozen=True)
class BankEntry:
    id: str
    text: str
    triggers: tuple[str, ...] = ()
    layers: tuple[str, ...] = ()
    note: str = ""

    @property
    def haystack(self) -> str:
        return f"{self.id} {self.text} {' '.join(self.triggers)} {' '.join(self.layers)} {self.note}".casefold()


def _tuple(v: object) -> tuple[str, ...]:
    if isinstance(v, str):
        return (v,)
    if isinstance(v, (list, tuple, set, frozenset)):
        return tuple(str(x) for x in v)
    return ()


def entry_of(item: object) -> BankEntry | None:
    """A bank item (questions.BankItem, or a dict with its fields: a bank given by hand) as an entry."""
    get = item.get if isinstance(item, dict) else (lambda k, d=None: getattr(item, k, d))
    text = get("text")
    if not isinstance(text, str) or not text:
        return None
    return BankEntry(id=str(get("id") or ""), text=text, triggers=_tuple(get("triggers")),
                     layers=_tuple(get("layers") or get("layer")), note=str(get("note") or ""))


class BankSource:
    """Loads the bank once, on first use."""

    def __init__(self, loader=None) -> None:
        from questions import load_bank

        self._loader = loader or load_bank
        self._bank = None
        self.entries: list[BankEntry] | None = None
        self.error: str | None = None

    def load(self) -> list[BankEntry]:
        if self.entries is not None:
            return self.entries
        try:
            self._bank = self._loader()
            items = getattr(self._bank, "items", self._bank)
            self.entries = [e for e in (entry_of(i) for i in items) if e is not None]
        except Exception as exc:  # a broken bank file must not take the console down
            self.entries = []
            self.error = clean_line(f"question bank unavailable: {exc}")[:200]
        return self.entries

    def rank(self, kind: str, session_events: list[dict], limit: int | None = 9) -> list[tuple[str, str]] | None:
        """The bank's questions for a decision-point kind, best first, through questions.rank with
        a context built from the session's events (its start and the messages already sent);
        None when the bank did not load or the ranking failed."""
        from questions import context_from_events, rank

        self.load()
        if self._bank is None:
            return None
        try:
            ranked = rank(kind, self._bank, context_from_events(session_events))
        except Exception:  # a ranking bug must not take the console down: no live ranking then
            return None
        out = []
        for item in ranked or []:
            e = entry_of(item)
            if e is not None:
                out.append((e.id, e.text))
            if limit is not None and len(out) >= limit:
                break
        return out


def filter_entries(entries: list[BankEntry], query: str = "", trigger: str | None = None,
                   layer: str | None = None) -> list[BankEntry]:
    """Entries matching every word of the query (any order), the trigger and the layer."""
    words = query.casefold().split()
    out = []
    for e in entries:
        if trigger and trigger not in e.triggers:
            continue
        if layer and layer not in e.layers:
            continue
        hay = e.haystack
        if all(w in hay for w in words):
            out.append(e)
    return out
