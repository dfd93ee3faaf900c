"""One line per judged figure, for ``make bench-all`` (bench/bench_all.py).

Each benchmark prints its own table as before; when ``BENCH_RESULTS`` names a file, it also
appends one JSON line per figure there: the figure and its floor (as printed, with units),
their ratio, the goal, whether it passed (``None`` for information), and the 1-minute load
average when it was measured. bench_all.py runs every benchmark with that file set and writes
one table from the lines.
"""

from __future__ import annotations

import json
import os
import time

ENV = "BENCH_RESULTS"


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def emit(
    bench: str,
    metric: str,
    *,
    figure: str,
    floor: str = "-",
    ratio: float | None = None,
    goal: str = "-",
    passed: bool | None = None,
    load: float | None = None,
) -> None:
    """Append one figure to the ``BENCH_RESULTS`` file (nothing when it is not set)."""
    path = os.environ.get(ENV)
    if not path:
        return
    line = {
        "bench": bench,
        "metric": metric,
        "figure": figure,
        "floor": floor,
        "ratio": ratio,
        "goal": goal,
        "passed": passed,
        "load": load_average() if load is None else load,
        "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
