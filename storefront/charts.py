"""Bar charts drawn on the server as SVG (templates/admin/_bar_chart.html): the geometry here, the drawing in the
template. No script, no inline style (the CSP forbids both): colours are SVG presentation attributes. Every chart is
drawn beside a table of the same figures, which is what a screen reader reads (the SVG is `aria-hidden`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

# The drawing's own units (the SVG scales to its box).
WIDTH = 640
HEIGHT = 220
_TOP = 12
_BOTTOM = 34  # room for the labels under the bars
_LEFT = 8
_GAP = 0.25  # of each slot, between groups


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    color: str
    value: Decimal
    label: str  # the series' name and the value, for the tooltip (<title>)


@dataclass(frozen=True)
class Group:
    label: str
    label_x: float
    bars: list[Bar]


@dataclass(frozen=True)
class BarChart:
    title: str
    groups: list[Group]
    series: list[tuple[str, str]]  # (name, colour): the legend
    width: int = WIDTH
    height: int = HEIGHT
    baseline: float = HEIGHT - _BOTTOM  # the zero line: above the bottom when some value is negative

    @property
    def label_y(self) -> float:
        return self.height - _BOTTOM + 18

    @property
    def empty(self) -> bool:
        """Nothing to draw: no groups, or every bar of height 0 (the table beside still says the zeros)."""
        return not any(bar.height for group in self.groups for bar in group.bars)


def bar_chart(
    *,
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, str, Sequence[Decimal]]],
    width: int = WIDTH,
) -> BarChart:
    """Grouped bars: one group per label, one bar per series (name, colour, values in the labels' order). Negative
    values (a month of refunds, a margin below zero) are drawn down from the zero line, which rises to leave them
    room. A narrower `width` suits a narrower card (the labels keep their size)."""
    values_all = [value for _, _, values in series for value in values]
    top = max([*values_all, Decimal(0)])
    bottom = min([*values_all, Decimal(0)])
    span = top - bottom
    scale = (HEIGHT - _TOP - _BOTTOM) / float(span) if span > 0 else 0.0
    slot = (width - _LEFT) / max(len(labels), 1)
    bar_width = slot * (1 - _GAP) / max(len(series), 1)
    baseline = round(_TOP + float(top) * scale, 1) if span > 0 else HEIGHT - _BOTTOM
    groups = []
    for index, label in enumerate(labels):
        start = _LEFT + index * slot + slot * _GAP / 2
        bars = []
        for position, (name, color, values) in enumerate(series):
            value = values[index]
            height = abs(float(value)) * scale
            bars.append(
                Bar(
                    x=round(start + position * bar_width, 1),
                    y=round(baseline - height if value > 0 else baseline, 1),
                    width=round(bar_width - 1, 1),
                    height=round(height, 1),
                    color=color,
                    value=value,
                    label=f"{name}: {value}",
                )
            )
        groups.append(Group(label=label, label_x=round(start + slot * (1 - _GAP) / 2, 1), bars=bars))
    series_legend = [(name, color) for name, color, _ in series]
    return BarChart(title=title, groups=groups, series=series_legend, width=width, baseline=baseline)
