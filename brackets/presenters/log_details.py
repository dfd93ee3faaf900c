"""The "Details" column of the action log: an entry's recorded data as lines a director
reads ("Match: Qualifying, round 1 · table 2", "Seat: B · Ana Díaz"), never the data's
Python text.

Ids are named as the page names targets (matches by their table in their round, entries by
their player, partnerships by number); the caller passes its namers, so naming the details of
a page costs one query per kind of id on it, whatever the number of entries. A key without a
label here shows by its own name; values of unknown shape as plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Choices
from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext, pgettext_lazy

from brackets.models import Round, Stage
from brackets.presenters.director import user_label
from brackets.tournament_forms import LABELS as RULESET_LABELS
from brackets.tournament_forms import value_label
from core.choice_labels import choice_label
from scoring.models import Hand, Match, Seat
from scoring.presenters.match import SEAT_LETTERS
from tournament.models import ActionLog, Tournament, TournamentRole

# A namer: kind ("scoring.match", "tournament.entry", ...) and ids -> id: name.
Namer = Callable[[str, list[int]], dict[int, str]]

# What the keys services record mean, in the page's language (context "action log").
KEY_LABELS: dict[str, Promise] = {
    "match_id": pgettext_lazy("action log", "Match"),
    "match": pgettext_lazy("action log", "Match"),
    "continuation_match_id": pgettext_lazy("action log", "Play on in"),
    "seat": pgettext_lazy("action log", "Seat"),
    "number": pgettext_lazy("action log", "Number"),
    "reopened": pgettext_lazy("action log", "Match reopened"),
    "entry_id": pgettext_lazy("action log", "Player"),
    "player_id": pgettext_lazy("action log", "Player"),
    "out": pgettext_lazy("action log", "Out"),
    "in": pgettext_lazy("action log", "In"),
    "leaving_entry": pgettext_lazy("action log", "Leaving"),
    "joining_entry": pgettext_lazy("action log", "Joining"),
    "stage_id": pgettext_lazy("action log", "Stage"),
    "kind": pgettext_lazy("action log", "Kind"),
    "tables": pgettext_lazy("action log", "Tables"),
    "byes": pgettext_lazy("action log", "Byes"),
    "eliminated": pgettext_lazy("action log", "Out of the stage"),
    "advanced": pgettext_lazy("action log", "Going on"),
    # the end of the final (T6): the final table's players in place order
    "final_places": pgettext_lazy("action log", "Final placings"),
    "order": pgettext_lazy("action log", "Seed order"),
    "partnerships": pgettext_lazy("action log", "Seed order"),
    "method": pgettext_lazy("action log", "Method"),
    "rng_seed": pgettext_lazy("action log", "Random seed"),
    # The recorded seed where no random seeding used it: it draws the seats (T8).
    "seat_draw_seed": pgettext_lazy("action log", "Seat-draw seed"),
    "seed": pgettext_lazy("action log", "Seed"),
    "joined_round": pgettext_lazy("action log", "Joins in round"),
    "forfeited_matches": pgettext_lazy("action log", "Matches forfeited"),
    "entries": pgettext_lazy("action log", "Players"),
    "entry_ids": pgettext_lazy("action log", "Players"),
    "user_id": pgettext_lazy("action log", "Person"),
    "before": pgettext_lazy("action log", "Before"),
    "after": pgettext_lazy("action log", "After"),
    "scores": pgettext_lazy("action log", "Scores"),
    "placings": pgettext_lazy("action log", "Places"),
    "winner_seat": pgettext_lazy("action log", "Winner"),
    "status": pgettext_lazy("action log", "Status"),
    "end_reason": pgettext_lazy("action log", "How it ended"),
    "after_advance": pgettext_lazy("action log", "After the next round was published"),
    "ended": pgettext_lazy("action log", "Placed"),
    "sudden_death": pgettext_lazy("action log", "Playing a sudden-death hand"),
    "unconfirmed_voided": pgettext_lazy("action log", "Unconfirmed hand voided"),
    "recorded": pgettext_lazy("action log", "Recorded"),
    "claimed": pgettext_lazy("action log", "Claimed"),
    "finished": pgettext_lazy("action log", "Match finished"),
    "table": pgettext_lazy("action log", "Table"),
    "role": pgettext_lazy("action log", "Role"),
    # a referee credential revoked as a new one was issued in its place (the table sheets)
    "replaced_by": pgettext_lazy("action log", "Replaced by"),
    # players.import / players.add
    "created_players": pgettext_lazy("action log", "New players"),
    "reused_players": pgettext_lazy("action log", "Players already known"),
    "checked_in": pgettext_lazy("action log", "Checked in"),
    "skipped_rows": pgettext_lazy("action log", "Rows skipped"),
    "namesakes": pgettext_lazy("action log", "Same name as a known player"),
    # the system's own marks (tournament.running, tournament.finished)
    "by": pgettext_lazy("action log", "By"),
    # credentials and roles
    "prefix": pgettext_lazy("action log", "Key prefix"),
    "label": pgettext_lazy("action log", "Label"),
    "expires_at": pgettext_lazy("action log", "Expires"),
    "username": pgettext_lazy("action log", "User name"),
    "invitation": pgettext_lazy("action log", "Invitation"),
    "tournament_finished": pgettext_lazy("action log", "Because the tournament finished"),
    "issuer_removed": pgettext_lazy("action log", "Because its issuer lost the role"),
    # stages and rounds
    "seeded_from": pgettext_lazy("action log", "Seeded from"),
    "stage": pgettext_lazy("action log", "Stage"),
    "shared": pgettext_lazy("action log", "Shared places"),
    "winner": pgettext_lazy("action log", "Winner"),
    "name": pgettext_lazy("action log", "Name"),
    "auto_advance": pgettext_lazy("action log", "Next round published on its own"),
    "round_time_limit": pgettext_lazy("action log", "Time limit per round (minutes)"),
    "swiss_rounds": pgettext_lazy("action log", "Rounds"),
    "cut_size": pgettext_lazy("action log", "Cut"),
    "advance_per_table": pgettext_lazy("action log", "Going on from each table"),
    "final_table_size": pgettext_lazy("action log", "Final table seats"),
    "allow_three": pgettext_lazy("action log", "3-player tables allowed"),
    "bye_policy": pgettext_lazy("action log", "Byes count"),
    "seat_order": pgettext_lazy("action log", "Seat order"),
    "seeding": pgettext_lazy("action log", "Seeding"),
    # partnerships (T9, T11)
    "slot": pgettext_lazy("action log", "Place in the partnership"),
    "stage_entries_moved": pgettext_lazy("action log", "Stage places handed over"),
    # the tournament's settings
    "venue": pgettext_lazy("action log", "Venue"),
    "starts_on": pgettext_lazy("action log", "Starts on"),
    "ends_on": pgettext_lazy("action log", "Ends on"),
    "ruleset_preset": pgettext_lazy("action log", "Ruleset preset"),
    "ruleset_overrides": pgettext_lazy("action log", "Ruleset changes"),
    "confirmation": pgettext_lazy("action log", "Confirmation at the table"),
    "entry_format": pgettext_lazy("action log", "Entry format"),
    "count": pgettext_lazy("action log", "Players"),
    # webhooks and players' e-mail addresses
    "url": pgettext_lazy("action log", "Address"),
    "events": pgettext_lazy("action log", "Events"),
    "delivery": pgettext_lazy("action log", "Delivery"),
    "changed": pgettext_lazy("action log", "Changed"),
    # player.merge
    "kept": pgettext_lazy("action log", "Kept"),
    "merged": pgettext_lazy("action log", "Merged into it"),
    "merged_name": pgettext_lazy("action log", "Merged player's name"),
    "entries_moved": pgettext_lazy("action log", "Entries moved"),
    # disputes: the match's hold before, and both versions of the hand
    "hold_before": pgettext_lazy("action log", "Waiting before"),
    "poser": pgettext_lazy("action log", "Posed by"),
    "pose_tile": pgettext_lazy("action log", "Pose tile"),
    "end": pgettext_lazy("action log", "How the hand ended"),
    "counts": pgettext_lazy("action log", "Counts"),
    "llave": pgettext_lazy("action log", "Llave claimed (R24)"),
    "sporting": pgettext_lazy("action log", "Sporting declaration (R11)"),
}

MATCH = "scoring.match"
ENTRY = "tournament.entry"
PARTNERSHIP = "tournament.partnership"
STAGE = "brackets.stage"
PLAYER = "tournament.player"
USER = "auth.user"
RESULT_VERBS = frozenset({"match.override", "match.time_called"})  # before/after results

# Keys whose value is one id (or a list of ids) of a kind; entrant lists of a pairs stage
# hold partnerships (T9).
ONE: dict[str, str] = {
    "match_id": MATCH,
    "match": MATCH,
    "continuation_match_id": MATCH,
    "entry_id": ENTRY,
    "out": ENTRY,
    "in": ENTRY,
    "leaving_entry": ENTRY,
    "joining_entry": ENTRY,
    "player_id": PLAYER,
    "stage_id": STAGE,
    "user_id": USER,
}
ENTRANT_LISTS = {"order", "advanced", "byes", "eliminated", "partnerships"}
LISTS: dict[str, str] = {
    "entries": ENTRY,
    "entry_ids": ENTRY,
    "sudden_death": MATCH,
    "unconfirmed_voided": MATCH,
}


# Keys whose value is a stored choice ("swiss", "rating"), shown by the choice's label in the
# page's language; ``status``, ``kind`` and a status change's before/after depend on the verb.
CHOICES: dict[str, type[Choices]] = {
    "method": Stage.Seeding,
    "seeding": Stage.Seeding,
    "bye_policy": Stage.ByePolicy,
    "seat_order": Stage.SeatOrder,
    "role": TournamentRole.Role,
    "end_reason": Match.EndReason,
    "confirmation": Tournament.Confirmation,
}
STATUS_BY_VERB: dict[str, type[Choices]] = {
    "tournament": Tournament.Status,
    "stage": Stage.Status,
    "round": Round.Status,
    "match": Match.Status,
    "result": Match.Status,
}
# A status change's before/after; the system's own marks record only ``after``.
STATUS_CHANGES = frozenset(
    {"tournament.status", "tournament.reopen", "tournament.running", "tournament.finished"}
)
# Fixed words a service records as a value, in the page's language.
VALUE_WORDS: dict[tuple[str, str], Promise] = {
    ("by", "system"): pgettext_lazy("action log", "the system"),
    ("hold_before", "hand"): pgettext_lazy("action log", "for the hand to be confirmed"),
    ("hold_before", "result"): pgettext_lazy("action log", "for the result to be confirmed"),
    ("hold_before", "disputed"): pgettext_lazy("action log", "on a dispute"),
}
# Keys holding one hand's outcome record (a dispute's two versions of the hand).
HAND_RECORDS = frozenset({"claimed", "recorded"})
ENTRY_FORMAT_CHANGE = "tournament.entry_format"


def _entry_format_label(value: str) -> str:
    """The entry format's label (T9): "Individual players", "Partnerships (T9)"."""
    choices = dict(Tournament._meta.get_field("entry_format").choices or [])
    label = choices.get(value)
    return gettext(str(label)) if label is not None else value


def choice_shown(verb: str, key: str, value: Any) -> str | None:
    """``value`` as its choice's label when ``key`` holds a stored choice, else None."""
    if not isinstance(value, str) or not value:
        return None
    if key in ("before", "after"):
        if verb in STATUS_CHANGES:
            return choice_label(Tournament.Status, value)
        if verb == ENTRY_FORMAT_CHANGE:
            return _entry_format_label(value)
        return None
    if key == "entry_format":
        return _entry_format_label(value)
    if (word := VALUE_WORDS.get((key, value))) is not None:
        return str(word)
    if key == "end":
        return choice_label(Hand.End, value)
    if key == "kind":
        return choice_label(Round.Kind if verb.startswith("round.") else Stage.Kind, value)
    if key == "status":
        choices = STATUS_BY_VERB.get(verb.split(".", 1)[0])
        return choice_label(choices, value) if choices is not None else None
    choices = CHOICES.get(key)
    return choice_label(choices, value) if choices is not None else None


def _final_places(data: dict[str, Any]) -> list[tuple[int, int]]:
    """A finished final's ``final_places`` (``stage.finish``): ``(place, entry id)`` pairs in
    place order; anything of another shape is left out."""
    value = data.get("final_places")
    if not isinstance(value, list):
        return []
    return [
        (p[0], p[1])
        for p in value
        if isinstance(p, list)
        and len(p) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
    ]


def _label(key: str) -> str:
    label = KEY_LABELS.get(key)
    return str(label) if label is not None else key.replace("_", " ").capitalize()


class _Details:
    """The lines of one page of entries: ids collected first, named in one pass per kind."""

    def __init__(
        self,
        logs: list[ActionLog],
        namer: Namer,
        pairs_stages: set[int],
        stage_kinds: Mapping[int, str],
    ) -> None:
        self.logs = logs
        self.namer = namer
        self.pairs_stages = pairs_stages
        self.stage_kinds = stage_kinds
        self.wanted: dict[str, set[int]] = {}
        self.seats: set[tuple[int, int]] = set()
        self.names: dict[str, dict[int, str]] = {}
        self.seat_names: dict[tuple[int, int], str] = {}

    # -- which ids a log's data holds --------------------------------------------------------

    def _entrant_kind(self, log: ActionLog, data: dict[str, Any]) -> str:
        stage = data.get("stage_id")
        if stage is None and log.target_type == STAGE and log.target_id.isdigit():
            stage = int(log.target_id)
        return PARTNERSHIP if stage in self.pairs_stages else ENTRY

    def kind_of(self, log: ActionLog, data: dict[str, Any], key: str) -> str | None:
        if key in ONE:
            return ONE[key]
        # A list key holding a whole number is a count ("entries": 6 players imported,
        # "eliminated": 12 out of a finished stage), never an id.
        if (key in LISTS or key in ENTRANT_LISTS) and not isinstance(data.get(key), list):
            return None
        if key in LISTS:
            return LISTS[key]
        if key in ENTRANT_LISTS:
            return self._entrant_kind(log, data)
        if log.verb == "stage.reorder" and key in ("before", "after"):
            return self._entrant_kind(log, data)
        if log.verb == "match.assign_referee" and key in ("before", "after"):
            return USER
        return None

    def _want(self, kind: str, value: Any) -> None:
        values = value if isinstance(value, list) else [value]
        ids = {v for v in values if isinstance(v, int) and not isinstance(v, bool)}
        self.wanted.setdefault(kind, set()).update(ids)

    def _match_of(self, log: ActionLog, data: dict[str, Any]) -> int | None:
        match_id = data.get("match_id")
        if isinstance(match_id, int):
            return match_id
        if log.target_type == MATCH and log.target_id.isdigit():
            return int(log.target_id)
        return None

    def collect(self) -> None:
        for log in self.logs:
            data = log.data if isinstance(log.data, dict) else {}
            for key, value in data.items():
                if kind := self.kind_of(log, data, key):
                    self._want(kind, value)
            match_id = self._match_of(log, data)
            if match_id is not None:
                self._want(MATCH, match_id)
                if isinstance(seat := data.get("seat"), int):
                    self.seats.add((match_id, seat))
                after = data.get("after")
                if isinstance(after, dict) and isinstance(w := after.get("winner_seat"), int):
                    self.seats.add((match_id, w))
                for key in HAND_RECORDS:
                    if isinstance(hand := data.get(key), dict):
                        for part in ("poser", "winner"):
                            if isinstance(s := hand.get(part), int):
                                self.seats.add((match_id, s))
            self._want(ENTRY, [entry_id for _place, entry_id in _final_places(data)])
            seeded_from = data.get("seeded_from")
            if isinstance(seeded_from, dict) and isinstance(seeded_from.get("order"), list):
                self._want(self._entrant_kind(log, data), seeded_from["order"])
            ended = data.get("ended")
            if log.verb == "round.call_time" and isinstance(ended, dict):
                self._want(MATCH, [int(k) for k in ended if str(k).isdigit()])
        for kind, ids in self.wanted.items():
            if not ids:
                continue
            if kind == USER:
                users = get_user_model().objects.filter(pk__in=ids)
                self.names[kind] = {u.pk: user_label(u) for u in users}
            else:
                self.names[kind] = self.namer(kind, sorted(ids))
        if self.seats:
            rows = Seat.objects.filter(match_id__in={m for m, _s in self.seats}).values_list(
                "match_id", "seat", "entry__player__name"
            )
            self.seat_names = {(m, s): name for m, s, name in rows if (m, s) in self.seats}

    # -- the lines ---------------------------------------------------------------------------

    def name(self, kind: str, value: Any) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            return self.names.get(kind, {}).get(value) or f"#{value}"
        return self.text(value)

    def seat(self, match_id: int | None, seat: Any) -> str:
        if not isinstance(seat, int) or isinstance(seat, bool):
            return self.text(seat)
        letter = SEAT_LETTERS[seat] if 0 <= seat < len(SEAT_LETTERS) else str(seat)
        name = self.seat_names.get((match_id, seat)) if match_id is not None else None
        return f"{letter} · {name}" if name else letter

    def text(self, value: Any) -> str:
        if value is None or value == "":
            return "—"
        if isinstance(value, bool):
            return pgettext("action log", "yes") if value else pgettext("action log", "no")
        if isinstance(value, list | tuple):
            return ", ".join(self.text(v) for v in value) or "—"
        if isinstance(value, dict):
            return "; ".join(f"{_label(str(k))}: {self.text(v)}" for k, v in value.items())
        return str(value)

    def _result(self, match_id: int | None, value: Any) -> str:
        """A match result recorded by an override: status, scores, places, winner."""
        if not isinstance(value, dict):
            return self.text(value)
        parts: list[str] = []
        status = value.get("status")
        if isinstance(status, str) and status:
            said = choice_label(Match.Status, status)
            reason = value.get("end_reason")
            if isinstance(reason, str) and reason:
                said = f"{said} ({choice_label(Match.EndReason, reason)})"
            parts.append(said)
        scores = value.get("scores")
        if isinstance(scores, list) and scores:
            parts.append(f"{_label('scores')}: {'-'.join(self.text(s) for s in scores)}")
        placings = value.get("placings")
        if isinstance(placings, list) and placings:
            parts.append(f"{_label('placings')}: {self.text(placings)}")
        if "winner_seat" in value:
            winner = value["winner_seat"]
            shown = self.seat(match_id, winner) if winner is not None else "—"
            parts.append(f"{_label('winner_seat')}: {shown}")
        return "; ".join(parts)

    def _hand(self, match_id: int | None, value: dict[str, Any]) -> str:
        """One version of a hand (a dispute's claim or the referee's record): seats by
        letter and name, how it ended by its label, counts as "12-0-7-3"."""
        parts: list[str] = []
        for key, part in value.items():
            if key in ("poser", "winner") and part is not None:
                shown = self.seat(match_id, part)
            elif key == "end" and isinstance(part, str):
                shown = choice_label(Hand.End, part)
            elif key == "counts" and isinstance(part, list):
                shown = "-".join(self.text(c) for c in part)
            else:
                shown = self.text(part)
            parts.append(f"{_label(key)}: {shown}")
        return "; ".join(parts)

    def _seeded_from(self, log: ActionLog, data: dict[str, Any], value: Any) -> list[str]:
        """A stage seeded when it was added (T6): from which stage, in which order."""
        if not isinstance(value, dict):
            return [f"{_label('seeded_from')}: {self.text(value)}"]
        out: list[str] = []
        number = value.get("stage")
        if number is not None:
            stage = pgettext("action log", "stage %(number)s") % {"number": number}
            out.append(f"{_label('seeded_from')}: {stage}")
        order = value.get("order")
        if isinstance(order, list):
            kind = self._entrant_kind(log, data)
            names = ", ".join(self.name(kind, v) for v in order) or "—"
            out.append(f"{_label('order')}: {names}")
        return out

    def _stage_kind(self, log: ActionLog) -> str | None:
        """The kind of the stage a stage entry is about, as the stages page names it ("Final
        table only" for a knockout whose field is the final table, T6), when known."""
        if log.target_type != STAGE or not log.target_id.isdigit():
            return None
        return self.stage_kinds.get(int(log.target_id))

    def lines(self, log: ActionLog) -> tuple[str, ...]:
        data = log.data if isinstance(log.data, dict) else {}
        match_id = self._match_of(log, data)
        out: list[str] = []
        for key, value in data.items():
            if log.verb in RESULT_VERBS and key in ("before", "after"):
                shown = self._result(match_id, value)
            elif key in HAND_RECORDS and isinstance(value, dict):
                shown = self._hand(match_id, value)
            elif key == "final_places" and isinstance(value, list):
                shown = (
                    "; ".join(
                        f"{place}. {self.name(ENTRY, entry_id)}"
                        for place, entry_id in _final_places(data)
                    )
                    or "—"
                )
            elif key == "seeded_from":
                out.extend(self._seeded_from(log, data, value))
                continue
            elif key == "ruleset_overrides" and isinstance(value, dict):
                shown = (
                    "; ".join(
                        f"{RULESET_LABELS.get(k) or str(k).replace('_', ' ').capitalize()}: "
                        f"{value_label(str(k), v) if isinstance(v, str) else self.text(v)}"
                        for k, v in value.items()
                    )
                    or "—"
                )
            elif (
                key == "kind"
                and log.verb.startswith("stage.")
                and (stage_kind := self._stage_kind(log))
            ):
                shown = stage_kind
            elif key == "rng_seed" and data.get("method") != Stage.Seeding.RANDOM:
                # A stage's or round's seed draws the seats (T8); it seeds the stage only in
                # a random seeding. "Random seed" next to "Method: By rating" read as a
                # random seeding (user test).
                out.append(f"{_label('seat_draw_seed')}: {self.text(value)}")
                continue
            elif key == "seat":
                shown = self.seat(match_id, value)
            elif key == "ended" and isinstance(value, dict):
                for mid, decision in value.items():
                    match = self.name(MATCH, int(mid)) if str(mid).isdigit() else str(mid)
                    places = decision.get("placings") if isinstance(decision, dict) else None
                    out.append(f"{match}: {_label('placings')} {self.text(places)}")
                continue
            elif kind := self.kind_of(log, data, key):
                if isinstance(value, list):
                    shown = ", ".join(self.name(kind, v) for v in value) or "—"
                else:
                    shown = self.name(kind, value)
            elif (said := choice_shown(log.verb, key, value)) is not None:
                shown = said
            else:
                shown = self.text(value)
            out.append(f"{_label(key)}: {shown}")
        return tuple(out)


def detail_lines(
    logs: list[ActionLog],
    namer: Namer,
    pairs_stages: Iterable[int] = (),
    stage_kinds: Mapping[int, str] | None = None,
) -> dict[int, tuple[str, ...]]:
    """Log id -> its data as readable lines (empty for an entry without data).
    ``pairs_stages``: the ids of the tournament's pairs stages, whose entrant lists hold
    partnerships (T9); ``stage_kinds``: stage id -> its kind as the stages page names it,
    for a stage entry's "Kind" (a knockout stage may be the final table only, T6)."""
    details = _Details(logs, namer, set(pairs_stages), stage_kinds or {})
    details.collect()
    return {log.pk: details.lines(log) for log in logs}
