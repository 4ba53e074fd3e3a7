"""The command palette's provider: every action of the screen, with its key, by name.

Built from the bindings themselves (the session screen's, the transcript's and the app's), so a
new key binding is in the palette without anyone remembering to add it.
"""
from __future__ import annotations

from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider


def _key_label(app, binding: Binding) -> str:
    if binding.key_display:
        return binding.key_display
    return ", ".join(app.get_key_display(Binding(k, "")) for k in binding.key.split(","))


def _bindings_of(node) -> list[Binding]:
    """A node's declared bindings, its own first, then those it inherits."""
    out = []
    for cls in type(node).__mro__:
        for b in cls.__dict__.get("BINDINGS", []):
            if isinstance(b, Binding):
                out.append(b)
    return out


def palette_commands(screen) -> list[tuple[str, str, object, str]]:
    """(title, help, node, action) for each enabled, described binding reachable on `screen`."""
    from console.screens.session import SessionScreen
    from console.widgets.transcript import Transcript

    app = screen.app
    nodes = [screen]
    if isinstance(screen, SessionScreen):
        nodes.append(screen.query_one(Transcript))
    nodes.append(app)
    out, seen = [], set()
    for node in nodes:
        for binding in _bindings_of(node):
            if not binding.description or binding.system:
                continue
            title = binding.description
            if title in ("send",):
                title = "send question 1"
            if (title, binding.action) in seen:
                continue
            seen.add((title, binding.action))
            out.append((title[:1].upper() + title[1:], f"key: {_key_label(app, binding)}", node,
                        binding.action))
    return out


class ConsoleCommands(Provider):
    async def discover(self) -> Hits:
        for title, help_text, node, action in palette_commands(self.screen):
            yield DiscoveryHit(title, partial(self._run, node, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, node, action in palette_commands(self.screen):
            score = matcher.match(f"{title} {help_text}")
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self._run, node, action),
                          help=help_text)

    async def _run(self, node, action: str) -> None:
        await self.app.run_action(action, node)
