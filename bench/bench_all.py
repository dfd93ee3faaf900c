"""Every benchmark in a quick mode, one table (``make bench-all``).

Runs the engine (fold; play and validation), brackets, standings, hands, live fan-out,
players, rounds (a real Celery worker) and nginx-cache benchmarks one after another, each as its
own process with ``BENCH_RESULTS`` set (bench/results.py), so each appends one line per judged
figure: the figure, its floor measured in the same run, their ratio, the goal, pass/fail and the
1-minute load average. Prints one table and writes it to bench/RESULTS.md with the date and the
load, which is where the README's figures come from: the run replaces the one under
:data:`LAST_RUN` and that one moves below it, so the file keeps every run and the notes above
(:func:`results_merged`). Each benchmark's own output goes to a log file (listed at the end).

Quick mode keeps every benchmark's floor and its >= 3 alternating trials but shortens what each
trial does (fewer hands, 1,000 sockets only, shorter phases); ``--full`` runs the defaults.
Usage: ``python bench/bench_all.py [--full] [--only engine,standings] [--no-write]``; a run
with ``--only`` prints its table and writes nothing (it is not a full run).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE = Path(__file__).resolve().parent.parent
RESULTS_MD = BASE / "bench" / "RESULTS.md"
TITLE = "# Benchmark results"
#: The line above the latest run in bench/RESULTS.md: notes written by hand go above it,
#: earlier runs below the latest, each under its own heading.
LAST_RUN = "The table below is the last full `make bench-all`."

# (benchmark, script, quick arguments, full arguments)
BENCHES: list[tuple[str, str, list[str], list[str]]] = [
    # Five paired trials for the engine and the standings: with three, a ratio near its goal
    # flipped between runs on a shared VM (fold 0.053-0.066, simulate 0.75-0.83).
    ("engine", "bench_engine_fold.py", ["--hands", "20000", "--trials", "5"], []),
    ("engine", "bench_engine_play.py", ["--hands", "900", "--trials", "5"], []),
    ("brackets", "bench_brackets.py", [], []),
    # Before the load-heavy ones (hands, fan-out): they left the 1-minute load at 2-3.
    ("standings", "bench_live_fanout.py", ["--skip-fanout", "--trials", "5"], ["--skip-fanout"]),
    (
        "hands",
        "bench_hands.py",
        ["--clients", "20", "--seconds", "3", "--rounds", "3", "--matches", "14"],
        [],
    ),
    (
        "live",
        "bench_live_fanout.py",
        ["--skip-standings", "--sizes", "1000,10000", "--trials", "3", "--hands", "3"],
        ["--skip-standings"],
    ),
    ("players", "bench_players.py", ["--repeats", "3"], []),
    ("rounds", "bench_rounds.py", ["--repeats", "3"], []),
    ("nginx", "bench_nginx_cache.py", ["--players", "200", "--seconds", "2"], []),
]


def _ratio(value: float) -> str:
    """Two decimals, three below 0.1 (0.055 and 0.06 are a FAIL and a PASS of a 0.06 goal)."""
    return f"{value:.3f}" if abs(value) < 0.1 else f"{value:.2f}"


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def run(
    name: str, script: str, argv: list[str], results: Path, logs: Path
) -> tuple[int, float, Path]:
    log = logs / f"{Path(script).stem}{'-' + name if 'live_fanout' in script else ''}.log"
    cmd = [sys.executable, str(BASE / "bench" / script), *argv]
    print(f"[{time.strftime('%H:%M:%S')}] {name}: {' '.join(cmd[1:])}", flush=True)
    t0 = time.monotonic()
    with log.open("w") as out:
        code = subprocess.call(
            cmd,
            cwd=str(BASE),
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "BENCH_RESULTS": str(results)},
        )
    seconds = time.monotonic() - t0
    print(f"    exit {code} after {seconds:.0f} s, log {log}", flush=True)
    return code, seconds, log


def _cell(text: object) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def table(lines: list[dict[str, object]]) -> list[str]:
    head = ["benchmark", "figure", "measured", "floor (same run)", "ratio", "goal", "pass", "load"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in lines:
        ratio = r["ratio"]
        passed = r["passed"]
        out.append(
            "| "
            + " | ".join(
                _cell(c)
                for c in (
                    r["bench"],
                    r["metric"],
                    r["figure"],
                    r["floor"],
                    "-" if ratio is None else _ratio(float(str(ratio))),
                    r["goal"],
                    "info" if passed is None else ("PASS" if passed else "FAIL"),
                    f"{float(str(r['load'])):.1f}",
                )
            )
            + " |"
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="each benchmark's default size")
    parser.add_argument("--only", default="", help="comma-separated: " + ", ".join(
        dict.fromkeys(b[0] for b in BENCHES)))  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args()
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    unknown = only - {b[0] for b in BENCHES}
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")

    tmp = Path(tempfile.mkdtemp(prefix="bench-all-"))
    results = tmp / "results.jsonl"
    results.touch()
    load_start = load_average()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs = []
    for name, script, quick, full in BENCHES:
        if only and name not in only:
            continue
        before = len(results.read_text().splitlines())
        code, seconds, log = run(name, script, full if args.full else quick, results, tmp)
        emitted = len(results.read_text().splitlines()) - before
        runs.append((name, script, code, seconds, log))
        if emitted == 0:  # crashed before its table: a failure of its own
            with results.open("a") as out:
                out.write(
                    json.dumps(
                        {
                            "bench": name,
                            "metric": f"{script} ran",
                            "figure": f"exit {code}, no figures (see {log})",
                            "floor": "-",
                            "ratio": None,
                            "goal": "figures printed",
                            "passed": False,
                            "load": load_average(),
                        }
                    )
                    + "\n"
                )
    lines = [json.loads(x) for x in results.read_text().splitlines() if x.strip()]
    passed = all(r["passed"] is not False for r in lines)
    mode = "full" if args.full else "quick"
    header = [
        f"`make bench-all` ({mode} mode), {started}; 1-minute load average {load_start:.2f} at "
        f"the start, {load_average():.2f} at the end; {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. Every figure is judged by its ratio to a floor measured "
        "in the same run (median of >= 3 alternating trials, spread in brackets) unless its "
        "goal says absolute; the load column is the 1-minute load average when it was "
        "measured. On a shared machine absolute figures move with the load; the ratios much "
        "less. Each benchmark's own table (more figures, per-trial loads) is in its log.",
        "",
    ]
    body = table(lines)
    footer = [
        "",
        "| benchmark | script | exit | seconds |",
        "|---|---|---|---|",
        *(f"| {n} | {s} | {c} | {sec:.0f} |" for n, s, c, sec, _ in runs),
        "",
        f"Overall: {'PASS' if passed else 'FAIL'}",
    ]
    text = "\n".join([*header, *body, *footer]) + "\n"
    print()
    print(text)
    print("logs: " + ", ".join(str(r[4]) for r in runs))
    if only and not args.no_write:
        # A partial run is not "the last full run": printed, never written over it.
        print(f"--only {args.only}: not written to {RESULTS_MD.relative_to(BASE)}")
    elif not args.no_write:
        old = RESULTS_MD.read_text() if RESULTS_MD.exists() else ""
        RESULTS_MD.write_text(results_merged(old, text))
        print(f"written to {RESULTS_MD.relative_to(BASE)}")
    return 0 if passed else 1


def results_merged(old: str, run: str) -> str:
    """bench/RESULTS.md with ``run`` as the last full run: what is above :data:`LAST_RUN`
    (notes written by hand) stays, the run it replaces moves below it under a heading with
    its date, and the earlier runs stay below that."""
    if LAST_RUN not in old:
        notes = old.strip() or TITLE
        return f"{notes}\n\n{LAST_RUN}\n\n{run.strip()}\n"
    head, _, rest = old.partition(LAST_RUN)
    rest = rest.strip("\n")
    cut = rest.find("\n## ")
    previous, earlier = (rest, "") if cut < 0 else (rest[:cut], rest[cut + 1 :])
    parts = [head.rstrip("\n"), "", LAST_RUN, "", run.strip(), ""]
    if previous.strip():
        when = re.search(r"^`make bench-all` \((?:quick|full) mode\), ([^;]+);", previous, re.M)
        parts += [
            f"## Run of {when.group(1) if when else 'an earlier date'}",
            "",
            previous.strip(),
            "",
        ]
    if earlier.strip():
        parts += [earlier.strip(), ""]
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
