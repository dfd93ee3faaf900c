"""The "Details" column of the action log: an entry's recorded data as lines a director
reads ("Match: Qualifying, round 1 · table 2", "Seat: B · Ana Díaz"), never the data's
Python text.

Ids are named as the page names targets (matches by their table in their round, entries by
their player, partnerships by number); the caller passes its namers, so naming the details of
a page costs one query per kind of id on it, whatever the number of entries. A key without a
label here shows by its own name; values of unknown shape as plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Choices
from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext, pgettext_lazy

from brackets.models import Round, Stage
from brackets.presenters.director import user_label
from core.choice_labels import choice_label
from scoring.models import Match, Seat
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
    "order": pgettext_lazy("action log", "Seed order"),
    "partnerships": pgettext_lazy("action log", "Seed order"),
    "method": pgettext_lazy("action log", "Method"),
    "rng_seed": pgettext_lazy("action log", "Random seed"),
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
STATUS_CHANGES = frozenset({"tournament.status", "tournament.reopen"})
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
    if key == "kind":
        return choice_label(Round.Kind if verb.startswith("round.") else Stage.Kind, value)
    if key == "status":
        choices = STATUS_BY_VERB.get(verb.split(".", 1)[0])
        return choice_label(choices, value) if choices is not None else None
    choices = CHOICES.get(key)
    return choice_label(choices, value) if choices is not None else None


def _label(key: str) -> str:
    label = KEY_LABELS.get(key)
    return str(label) if label is not None else key.replace("_", " ").capitalize()


class _Details:
    """The lines of one page of entries: ids collected first, named in one pass per kind."""

    def __init__(self, logs: list[ActionLog], namer: Namer, pairs_stages: set[int]) -> None:
        self.logs = logs
        self.namer = namer
        self.pairs_stages = pairs_stages
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

    def lines(self, log: ActionLog) -> tuple[str, ...]:
        data = log.data if isinstance(log.data, dict) else {}
        match_id = self._match_of(log, data)
        out: list[str] = []
        for key, value in data.items():
            if log.verb in RESULT_VERBS and key in ("before", "after"):
                shown = self._result(match_id, value)
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
    logs: list[ActionLog], namer: Namer, pairs_stages: Iterable[int] = ()
) -> dict[int, tuple[str, ...]]:
    """Log id -> its data as readable lines (empty for an entry without data).
    ``pairs_stages``: the ids of the tournament's pairs stages, whose entrant lists hold
    partnerships (T9)."""
    details = _Details(logs, namer, set(pairs_stages))
    details.collect()
    return {log.pk: details.lines(log) for log in logs}
