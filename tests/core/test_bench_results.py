"""``make bench-all`` writes its run into bench/RESULTS.md without losing what is there: the
notes written by hand above the latest run, the run it replaces and every earlier run
(``bench.bench_all.results_merged``). Issue 19: README figures come from that file, with the
date and the load, so a new run must not erase the history they are compared against."""

from __future__ import annotations

from bench.bench_all import LAST_RUN, TITLE, results_merged


def _run(when: str, figure: str) -> str:
    return (
        f"`make bench-all` (quick mode), {when}; 1-minute load average 0.50 at the start, "
        f"0.90 at the end; 2 cores.\n\n| benchmark | figure |\n|---|---|\n| hands | {figure} |\n"
    )


def test_first_run_into_an_empty_file_gets_the_title_and_the_marker() -> None:
    text = results_merged("", _run("2026-12-07 17:30 UTC", "0.54"))
    assert text.startswith(TITLE + "\n\n" + LAST_RUN + "\n\n`make bench-all` (quick mode)")
    assert "| hands | 0.54 |" in text


def test_a_new_run_replaces_the_latest_and_keeps_notes_and_every_earlier_run() -> None:
    old = "\n".join(
        [
            TITLE,
            "",
            "**Hand entry, by hand** (a note written above the runs).",
            "",
            LAST_RUN,
            "",
            _run("2026-12-01 14:40 UTC", "0.57"),
            "## Run 3 (14:28 UTC)",
            "",
            _run("2026-12-01 14:28 UTC", "0.56"),
        ]
    )
    text = results_merged(old, _run("2026-12-07 17:30 UTC", "0.54"))
    # The notes stay on top, the new run right under the marker, then the one it replaced
    # under a heading naming its date, then the older runs as they were.
    order = [
        "**Hand entry, by hand**",
        LAST_RUN,
        "| hands | 0.54 |",
        "## Run of 2026-12-01 14:40 UTC",
        "| hands | 0.57 |",
        "## Run 3 (14:28 UTC)",
        "| hands | 0.56 |",
    ]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    assert text.count(LAST_RUN) == 1
    assert text.count("`make bench-all` (quick mode)") == 3


def test_running_twice_keeps_both_runs() -> None:
    first = results_merged("", _run("2026-12-07 17:30 UTC", "0.54"))
    second = results_merged(first, _run("2026-12-07 18:00 UTC", "0.55"))
    assert second.index("| hands | 0.55 |") < second.index("## Run of 2026-12-07 17:30 UTC")
    assert second.index("## Run of 2026-12-07 17:30 UTC") < second.index("| hands | 0.54 |")
