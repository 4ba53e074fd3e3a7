"""Textual's footer, rebuilt only when what it shows changes.

Textual's `Footer` recomposes (removes, makes, restyles and lays out every key: a layout of the
whole screen) after each change of the screen's bindings, whether or not the keys it shows
changed; opening a session screen makes three such changes (focus, resume, an idle refresh), and
each rebuild of its ~25 keys was ~10 ms of the open. Here a change while a rebuild is queued adds
nothing (the queued one reads the bindings as they are when it runs), and a rebuild that would
show the same keys is skipped.
"""
from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    _rebuild_queued = False
    _shown: tuple | None = None  # what the keys were last built from

    def bindings_changed(self, screen: Screen) -> None:
        if self._rebuild_queued:
            return
        super().bindings_changed(screen)
        # Textual queues the rebuild (after the next refresh) only under these conditions
        self._rebuild_queued = bool(screen.app.app_focus and self.is_attached and screen is self.screen)

    def _what_it_shows(self) -> tuple:
        """Everything the keys are composed from (Footer.compose)."""
        app = self.app
        keys = tuple((b.key, app.get_key_display(b), b.description, b.action, b.group, enabled, tooltip)
                     for _, b, enabled, tooltip in self.screen.active_bindings.values() if b.show)
        return keys, self.show_command_palette, self.compact, self.combine_groups

    async def recompose(self) -> None:
        self._rebuild_queued = False
        if not self.is_attached:
            return await super().recompose()
        shown = self._what_it_shows()
        if shown == self._shown and self.children:
            return
        self._shown = shown
        await super().recompose()
