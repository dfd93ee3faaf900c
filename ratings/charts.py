"""An accessible SVG line chart of a rating history, computed server-side (no script, no
inline style: the page's CSP allows neither). The page shows the same data as a table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 640
HEIGHT = 200
PAD = 32


@dataclass(frozen=True, slots=True)
class Chart:
    points: str  # the polyline's "x,y x,y ..."
    low: int
    high: int
    first: int  # the history in its order: where it started and where it stands now
    last: int
    width: int = WIDTH
    height: int = HEIGHT
    pad: int = PAD

    @property
    def plot_bottom(self) -> int:
        return self.height - self.pad

    @property
    def plot_right(self) -> int:
        return self.width - self.pad


def line_chart(values: Sequence[int]) -> Chart | None:
    """The polyline of ``values`` scaled into the plot area; ``None`` with fewer than 2 values."""
    if len(values) < 2:
        return None
    low, high = min(values), max(values)
    span = max(high - low, 1)
    step = (WIDTH - 2 * PAD) / (len(values) - 1)
    points = " ".join(
        f"{PAD + i * step:.1f},{HEIGHT - PAD - (v - low) * (HEIGHT - 2 * PAD) / span:.1f}"
        for i, v in enumerate(values)
    )
    return Chart(points=points, low=low, high=high, first=values[0], last=values[-1])


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: int
    y: int
    width: float
    label_x: float


@dataclass(frozen=True, slots=True)
class BarChart:
    bars: list[Bar]
    width: int
    height: int
    label_width: int


def bar_chart(items: Sequence[tuple[str, int]], *, width: int = 480) -> BarChart | None:
    """Horizontal bars, one per ``(label, value)``, scaled to the largest value; ``None`` when
    every value is 0 (nothing to draw; the table says so)."""
    top = max((v for _, v in items), default=0)
    if top <= 0:
        return None
    label_width, row = 160, 28
    span = width - label_width - 48
    bars = [
        Bar(
            label,
            value,
            i * row + 4,
            round(span * value / top, 1),
            label_width + span * value / top + 6,
        )
        for i, (label, value) in enumerate(items)
    ]
    return BarChart(bars=bars, width=width, height=row * len(items) + 8, label_width=label_width)
