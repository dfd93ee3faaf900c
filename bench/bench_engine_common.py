"""What the engine benchmarks share: trials against a floor measured in the same run.

Every figure is measured in ``trials`` alternating rounds (floor first in odd rounds, engine
first in even ones) with the CPU time of this single-threaded process, so other work on a
shared machine slows both sides alike. A figure is judged by its ratio to the floor (median of
the per-trial ratios); the absolute goal is printed as information. The 1-minute load average
is printed at the start and the end.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.results import emit


def load_average() -> float:
    """The 1-minute load average (0.0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def cpu_seconds(run: Callable[[], object]) -> float:
    t0 = time.process_time()
    run()
    return time.process_time() - t0


@dataclass(frozen=True)
class Figure:
    """One measured figure: per-trial engine and floor values in the figure's unit."""

    metric: str
    unit: str  # "hands/s" (higher is better) or "us" (lower is better)
    engine: tuple[float, ...]
    floor: tuple[float, ...]
    ratio_goal: float  # engine/floor for rates (>=), engine/floor for times (<=)
    absolute_goal: str

    @property
    def higher_is_better(self) -> bool:
        return self.unit.endswith("/s")

    @property
    def ratios(self) -> tuple[float, ...]:
        return tuple(e / f for e, f in zip(self.engine, self.floor, strict=True))

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def passed(self) -> bool:
        if self.higher_is_better:
            return self.ratio >= self.ratio_goal
        return self.ratio <= self.ratio_goal


def measure(
    metric: str,
    unit: str,
    engine: Callable[[], float],
    floor: Callable[[], float],
    trials: int,
    ratio_goal: float,
    absolute_goal: str,
) -> Figure:
    """Alternate ``floor`` and ``engine`` ``trials`` times; each returns one value in ``unit``."""
    e: list[float] = []
    f: list[float] = []
    for i in range(trials):
        if i % 2:
            e.append(engine())
            f.append(floor())
        else:
            f.append(floor())
            e.append(engine())
    return Figure(metric, unit, tuple(e), tuple(f), ratio_goal, absolute_goal)


def _fmt(value: float, unit: str) -> str:
    return f"{value:,.0f}" if unit.endswith("/s") else f"{value:,.1f}"


def print_table(title: str, figures: list[Figure], trials: int, load_start: float) -> bool:
    """Print the figures; returns whether every ratio goal was met."""
    head = (
        "metric",
        "engine median",
        "spread",
        "floor median",
        "ratio (spread)",
        "ratio goal",
        "absolute goal (info)",
        "pass",
    )
    rows = []
    for fig in figures:
        sign = ">=" if fig.higher_is_better else "<="
        rows.append(
            (
                f"{fig.metric} ({fig.unit})",
                _fmt(statistics.median(fig.engine), fig.unit),
                f"{_fmt(min(fig.engine), fig.unit)}-{_fmt(max(fig.engine), fig.unit)}",
                _fmt(statistics.median(fig.floor), fig.unit),
                f"{fig.ratio:.3f} ({min(fig.ratios):.3f}-{max(fig.ratios):.3f})",
                f"{sign} {fig.ratio_goal:g}",
                fig.absolute_goal,
                "yes" if fig.passed else "NO",
            )
        )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    print(title)
    print(f"load average (1 min) at start {load_start:.2f}, at end {load_average():.2f}; "
          f"{trials} trials, CPU time of one process, Python {sys.version.split()[0]}")  # fmt: skip
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    for fig, row in zip(figures, rows, strict=True):
        emit(
            "engine",
            row[0],
            figure=f"{row[1]} ({row[2]})",
            floor=row[3],
            ratio=fig.ratio,
            goal=f"ratio {row[5]}; {fig.absolute_goal} (info)",
            passed=fig.passed,
        )
    return all(fig.passed for fig in figures)


def compare(
    metric: str, a: Callable[[], float], b: Callable[[], float], trials: int, goal: float
) -> tuple[str, str, str, str]:
    """``b`` against ``a`` (rates, e.g. partnership vs individual), measured in alternating
    pairs so that load changes between configurations do not count: median of b/a (spread)."""
    ratios = []
    for i in range(trials):
        if i % 2:
            vb, va = b(), a()
        else:
            va, vb = a(), b()
        ratios.append(vb / va)
    ratio = statistics.median(ratios)
    return (
        metric,
        f"{ratio:.3f} ({min(ratios):.3f}-{max(ratios):.3f})",
        f">= {goal:g}",
        "yes" if ratio >= goal else "NO",
    )


def print_comparisons(rows: list[tuple[str, str, str, str]]) -> bool:
    head = ("partnership vs individual (paired trials)", "ratio (spread)", "goal", "pass")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    for metric, ratio, goal, passed in rows:
        emit(
            "engine",
            metric,
            figure="paired trials",
            floor="individual preset",
            ratio=float(ratio.split()[0]),
            goal=goal,
            passed=passed == "yes",
        )
    return all(r[3] == "yes" for r in rows)
