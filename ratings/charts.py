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
    return Chart(points=points, low=low, high=high)
