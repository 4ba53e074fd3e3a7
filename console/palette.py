"""Every action of the console, by name: the command palette's provider and the `?` keys list.

Built from the bindings themselves (the session screen's, the transcript's and the app's), so a
new key binding is listed without anyone remembering to add it. A binding's `tooltip` is what the
action does (the palette's title); its `description` is the footer's short label. Each action is
listed once, with all its keys; Textual's own system commands keep theirs (quit, theme,
screenshot), and its "Keys" panel, which would squeeze the transcript, is replaced by ours.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider


SYSTEM_ACTIONS = frozenset({"quit"})


@dataclass(frozen=True)
class Command:
    title: str  # what the action does
    keys: str  # its keys as the footer shows them, e.g. "d" or "↑, k"
    node: object  # where the action runs
    action: str


def _key_label(app, binding: Binding) -> str:
    """The binding's own keys (the footer's `key_display` stands for a group, like d/D, whose
    other keys are listed apart), except for a group whose others are not listed (1-9)."""
    if binding.key_display and binding.action.startswith("send("):
        return binding.key_display
    return ", ".join(app.get_key_display(Binding(k, "")) for k in binding.key.split(","))


def _own_bindings(node) -> list[Binding]:
    """The bindings the console's own classes declare for a node (not Textual's defaults)."""
    out = []
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("console."):
            continue
        for b in cls.__dict__.get("BINDINGS", []):
            if isinstance(b, Binding):
                out.append(b)
    return out


def screen_commands(screen) -> list[Command]:
    """The actions reachable on `screen`, each once, in the order their classes declare them."""
    from console.widgets.transcript import Transcript

    app = screen.app
    nodes = [screen]
    nodes += list(screen.query(Transcript))
    nodes.append(app)
    out: list[Command] = []
    seen_actions: dict[tuple[int, str], int] = {}
    seen_titles: set[str] = set()
    for node in nodes:
        for binding in _own_bindings(node):
            if binding.system or not (binding.tooltip or binding.description):
                continue
            if node is app and binding.action in SYSTEM_ACTIONS:
                continue  # Textual's system commands list it already
            keys = _key_label(app, binding)
            at = seen_actions.get((id(node), binding.action))
            if at is not None:  # the same action on another key: one entry, both keys
                c = out[at]
                if keys not in c.keys.split(", "):
                    out[at] = Command(c.title, f"{c.keys}, {keys}", c.node, c.action)
                continue
            title = binding.tooltip or binding.description
            title = title[:1].upper() + title[1:]
            if title in seen_titles:
                continue
            seen_titles.add(title)
            seen_actions[(id(node), binding.action)] = len(out)
            out.append(Command(title, keys, node, binding.action))
    return out


class ConsoleCommands(Provider):
    async def discover(self) -> Hits:
        for c in screen_commands(self.screen):
            yield DiscoveryHit(c.title, partial(self._run, c.node, c.action), help=f"key: {c.keys}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for c in screen_commands(self.screen):
            score = matcher.match(f"{c.title} {c.keys}")
            if score > 0:
                yield Hit(score, matcher.highlight(c.title), partial(self._run, c.node, c.action),
                          help=f"key: {c.keys}")

    async def _run(self, node, action: str) -> None:
        await self.app.run_action(action, node)
