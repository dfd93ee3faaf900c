"""Command line for the rules engine.

``python -m scoring.engine simulate --preset wsod --players 4 --seed 7 [--set key=value ...]``
plays a match with seeded bots and prints it hand by hand: hand number, poser, hand value,
result, scores after the hand and the rule notes (RULES.md sections 3-8). Under partnerships
(``--preset wsod_partners``, ``partnership_block`` or ``--set teams=partners``, 4 players, R42)
the scores are the two partnerships' (``AC-BD``) and a result names the winning partnership.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dominoes.digits import parse_int
from scoring.engine.errors import EngineError
from scoring.engine.match_state import HandScored, NextHand, team_name
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import PRESETS, Ruleset, Scoring
from scoring.engine.seats import seat_name
from scoring.engine.simulate import BOTS, SimulatedMatch, simulate_match


def parse_override(text: str) -> tuple[str, object]:
    """``key=value`` with JSON-ish values: true/false, null, integers, else the string."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    value = raw.strip()
    lowered = value.lower()
    parsed: object
    if lowered in ("true", "false"):
        parsed = lowered == "true"
    elif lowered == "null":
        parsed = None
    elif parse_int(value.removeprefix("-")) is not None:
        parsed = int(value)
    else:
        parsed = value
    return key.strip(), parsed


def format_match(ruleset: Ruleset, n_players: int, sim: SimulatedMatch) -> str:
    """The hand-by-hand table printed by ``simulate``."""
    partners = sim.final.partners
    head = ("#", "poser", "value", "result", "AC-BD" if partners else "scores", "notes")
    rows: list[tuple[str, ...]] = []
    for record, scored, announced in zip(sim.records, sim.scored, sim.next_hands, strict=True):
        rows.append(
            (
                str(scored.number),
                _poser_text(record, announced),
                _value_text(ruleset, scored, announced),
                _result_text(record, scored),
                "-".join(str(s) for s in scored.scores_after[: 2 if partners else None]),
                "; ".join(scored.notes),
            )
        )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head) - 1)]
    lines = []
    for row in [head, *rows]:
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    final = sim.final
    if final.over and final.winner is not None and partners:
        team = final.winner % 2
        summary = (
            f"Match over: {team_name(team)} ({seat_name(team)} and {seat_name(team + 2)}) "
            f"win after {final.hands} hands."
        )
    elif final.over and final.winner is not None:
        summary = f"Match over: {seat_name(final.winner)} wins after {final.hands} hands."
    else:
        summary = f"Stopped after {final.hands} hands without a winner (max hands reached)."
    title = (
        f"preset={ruleset.preset} players={n_players} seed={sim.seed} "
        f"lot={seat_name(sim.lot_winner)} target={ruleset.target_for(n_players)}"
    )
    overrides = ruleset.overrides()
    if overrides:
        title += " overrides: " + ", ".join(f"{k}={v}" for k, v in overrides.items())
    return "\n".join([title, *lines, summary])


def _poser_text(record: HandRecord, announced: NextHand) -> str:
    how = "sporting" if record.sporting else "forced" if announced.forced else "free"
    return f"{seat_name(record.poser)} {how} {record.pose_tile}"


def _value_text(ruleset: Ruleset, scored: HandScored, announced: NextHand) -> str:
    if ruleset.scoring is Scoring.PIPS:
        return "pips"
    if announced.is_playoff:
        return f"play-off {scored.value}"
    if announced.is_replay:
        return f"replay {scored.value}"
    return str(scored.value)


def _result_text(record: HandRecord, scored: HandScored) -> str:
    if scored.winner is None:
        return "tie " + "=".join(seat_name(s) for s in scored.tied) + _counts_text(record)
    how = "domino" if record.end is EndKind.DOMINO else "block"
    extra = " llave" if record.llave else ""
    if scored.team is not None:
        extra += f" for {team_name(scored.team)}"
    paid = f" +{scored.paid}" if scored.paid else ""
    return f"{seat_name(scored.winner)} {how}{extra}{paid}{_counts_text(record)}"


def _counts_text(record: HandRecord) -> str:
    if record.end is EndKind.DOMINO or record.counts is None:
        return ""
    return " (" + " ".join(str(c) for c in record.counts) + ")"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring.engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play a match with seeded bots and print it")
    sim.add_argument("--preset", default="wsod", choices=list(PRESETS))
    sim.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        type=parse_override,
        metavar="KEY=VALUE",
        help="override one ruleset key (section 1), e.g. --set llave=plus_one",
    )
    sim.add_argument("--bot", default="heuristic", choices=list(BOTS))
    sim.add_argument("--max-hands", type=int, default=500)
    sim.add_argument("--moves", action="store_true", help="also print every move of every hand")
    args = parser.parse_args(argv)

    try:
        ruleset = Ruleset.from_preset(args.preset, dict(args.overrides))
        result = simulate_match(
            ruleset, args.players, args.seed, bot=args.bot, max_hands=args.max_hands
        )
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        print(format_match(ruleset, args.players, result))
        if args.moves:
            for i, log in enumerate(result.logs, start=1):
                print(f"\nhand {i}: " + ", ".join(str(m) for m in log.moves))
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
