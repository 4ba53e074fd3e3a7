"""Shared by the console's Line-API widgets (the transcript, the evaluator panel)."""
from __future__ import annotations

from rich.style import Style
from textual.geometry import Size
from textual.widget import Widget


def set_virtual_size(widget: Widget, size: Size) -> None:
    """Change a scrolling widget's virtual size without a layout of the whole screen.

    Assigning `virtual_size` asks Textual for a layout, which re-composes every widget on the
    screen; a log growing 25 times a second would do that 25 times a second. When only the height
    changes and the vertical scrollbar is always shown (`overflow-y: scroll` in the .tcss), nothing
    else on the screen moves: set the value quietly and tell the scrollbar.
    """
    old = widget.virtual_size
    if old.width != size.width or widget.styles.overflow_y != "scroll" or not widget.is_mounted:
        widget.virtual_size = size
        return
    if old == size:
        return
    widget.set_reactive(Widget.virtual_size, size)
    bar = widget.vertical_scrollbar
    bar.window_virtual_size = size.height
    bar.window_size = widget.scrollable_content_region.height
    if widget.scroll_y > widget.max_scroll_y:
        widget.scroll_to(y=widget.max_scroll_y, animate=False, immediate=True)


class PartStyles:
    """A mixin for widgets that style their parts with component classes (`<prefix>--<name>` in
    the .tcss): `self.part("name")` is the Rich style, looked up once (a lookup walks the CSS)
    until the theme or the styles change."""

    PART_PREFIX = ""

    def part(self, name: str) -> Style:
        cache = self.__dict__.setdefault("_part_styles", {})
        style = cache.get(name)
        if style is None:
            style = self.get_component_rich_style(f"{self.PART_PREFIX}--{name}", partial=True)
            cache[name] = style
        return style

    def notify_style_update(self) -> None:
        self.__dict__.pop("_part_styles", None)
        super().notify_style_update()
