"""Shared by the console's Line-API widgets (the transcript, the evaluator panel)."""
from __future__ import annotations

from math import ceil

from rich.style import Style
from textual.geometry import Size
from textual.scrollbar import ScrollBar
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
    update_bar(widget.vertical_scrollbar, window_virtual_size=size.height,
               window_size=widget.scrollable_content_region.height)
    if widget.scroll_y > widget.max_scroll_y:
        widget.scroll_to(y=widget.max_scroll_y, animate=False, immediate=True)


class QuietScrollbar:
    """A mixin for a ScrollView whose vertical scrollbar is redrawn only when its thumb moves.

    Textual redraws the bar (~0.7 ms, a sixth of a frame) at every change of the scroll
    position or the virtual height; in a log of thousands of lines growing at its tail, or a
    page moved up, the thumb stays on the same eighth of a cell and the redraw changes nothing.
    """

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        # (ScrollView's, but the bar's position set through update_bar)
        if self.show_vertical_scrollbar:
            update_bar(self.vertical_scrollbar, position=new_value)
        if round(old_value) != round(new_value):
            self.refresh(self.size.region)


def update_bar(bar: ScrollBar, **values: float) -> None:
    """Set a scrollbar's window_virtual_size, window_size or position, redrawing it only if
    its thumb moves (or it has none and gains one)."""
    before = bar_thumb(bar)
    for name, value in values.items():
        if name == "position":
            value = bar.validate_position(value)
        bar.set_reactive(getattr(ScrollBar, name), value)
    if bar_thumb(bar) != before:
        bar.refresh()


def bar_thumb(bar: ScrollBar) -> tuple[int, int] | None:
    """Where ScrollBarRender.render_bar draws a vertical bar's thumb, in eighths of a cell
    (its arithmetic); None without one."""
    size = bar.size.height
    virtual = ceil(bar.window_virtual_size)
    window = ceil(bar.window_size if bar.window_size < bar.window_virtual_size else 0)
    if not (window and size and virtual and size != virtual):
        return None
    thumb = max(1, window / (virtual / size))
    position = (size - thumb) * (bar.position / (virtual - window))
    start = int(position * 8)
    return start, start + ceil(thumb * 8)


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
