"""Showing untrusted text safely: escape sequences and markup are displayed, never interpreted.

Everything the console shows from a session (assistant text, tool input and output, bank
questions, file names) may hold terminal escape sequences (ESC, CSI, OSC, C1 controls), Unicode
bidi overrides that reorder what the eye sees, or Rich/Textual markup like `[bold red]`. The rules:

- build `rich.text.Text` from it with `safe_text()` (Text never parses markup), never a markup
  string, and pass `markup=False` to `notify`;
- `clean()` replaces every control character except newline and tab with a visible stand-in:
  C0 controls by their Unicode control pictures (ESC becomes ␛, so `ESC[31m` reads `␛[31m`),
  DEL by ␡, C1 controls (U+0080–U+009F, e.g. the single-byte CSI U+009B) and bidi/zero-width
  format characters by `⟨U+XXXX⟩`. Tabs become spaces; CRLF becomes LF; a lone CR is shown (␍).
"""
from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

# Bidi embeddings/overrides/isolates and marks, and zero-width characters that hide or reorder text.
_FORMAT_CHARS = (
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2028\u2029\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _FORMAT_CHARS + "\ud800-\udfff]")
_TAB = 4


def _stand_in(match: re.Match) -> str:
    ch = match.group()
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (ESC -> ␛, CR -> ␍)
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"⟨U+{code:04X}⟩"


def clean(text: object) -> str:
    """A string safe to put on a terminal: no control, bidi or zero-width character survives."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if "\t" in text:
        text = text.expandtabs(_TAB)
    if text.isascii() and text.isprintable():
        return text  # the common case: nothing to do (newline is not printable, handled below)
    return _UNSAFE.sub(_stand_in, text)


def clean_line(text: object) -> str:
    """`clean` and fold newlines into spaces: for one-line summaries."""
    if (type(text) is str and text.isascii() and text.isprintable() and "  " not in text
            and text[:1] != " " and text[-1:] != " "):
        return text  # the common case, already one clean line (printable ASCII: no newline, tab or control)
    return " ".join(clean(text).split())


def safe_text(text: object, style: str | Style = "", *, one_line: bool = False) -> Text:
    """A `Text` holding `text` literally (no markup, no escapes)."""
    return Text(clean_line(text) if one_line else clean(text), style=style, end="", no_wrap=False)
