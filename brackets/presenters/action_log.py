"""The director's action log page: what each entry means and what it was about, in the
director's language.

Every verb a service records (``action_log_record(verb=...)`` anywhere in the project) has a
label here (tests/brackets/test_action_log_page.py reads the code and fails on a verb without
one); an unknown verb (an older entry) shows as it was recorded. Targets are named from the
data: a round as "Qualifying, round 2", a match as its table in its round, a credential by
its prefix and referee, a table by its number, a webhook by its URL, and so on. Naming the
targets of a page costs one query per kind of target on it, whatever the number of entries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import npgettext, pgettext, pgettext_lazy

from brackets.models import Round, RoundMatch, Stage
from brackets.presenters.director import user_label
from brackets.presenters.log_details import detail_lines
from brackets.presenters.pairs import stage_kind_label
from core.choice_labels import choice_phrase
from core.reasons import reason_text as stored_reason_text
from dominoes.digits import parse_int
from scoring.models import Hand, Match, ResultDispute, Seat
from scoring.presenters.match import SEAT_LETTERS
from tournament.models import (
    ActionLog,
    DirectorInvitation,
    Entry,
    Partnership,
    Player,
    RefereeToken,
    Table,
    Tournament,
    TournamentRole,
)

# Every label below is in the catalogue under the context "action log" (a literal: xgettext
# reads it from the call).

# What each recorded verb means. Keep in step with the services (the test above checks).
VERBS: dict[str, Promise] = {
    # tournament
    "tournament.update": pgettext_lazy("action log", "Tournament settings changed"),
    "tournament.status": pgettext_lazy("action log", "Tournament status changed"),
    "tournament.reopen": pgettext_lazy("action log", "Tournament reopened"),
    "tournament.running": pgettext_lazy("action log", "Tournament running (first round published)"),
    "tournament.finished": pgettext_lazy("action log", "Tournament finished"),
    "tournament.entry_format": pgettext_lazy("action log", "Entry format changed (T9)"),
    # people and credentials
    "referee.create": pgettext_lazy("action log", "Referee created"),
    "referee_token.issue": pgettext_lazy("action log", "Referee credential issued"),
    "referee_token.revoke": pgettext_lazy("action log", "Referee credential revoked"),
    "role.grant": pgettext_lazy("action log", "Role granted"),
    "director_invitation.issue": pgettext_lazy("action log", "Co-director invitation created"),
    "director_invitation.revoke": pgettext_lazy("action log", "Co-director invitation revoked"),
    "role.revoke": pgettext_lazy("action log", "Role removed"),
    "players.add": pgettext_lazy("action log", "Player added"),
    "players.import": pgettext_lazy("action log", "Players imported (CSV)"),
    "players.emails": pgettext_lazy("action log", "Players' e-mail addresses changed"),
    "player.merge": pgettext_lazy("action log", "Duplicate players merged"),
    "player.update": pgettext_lazy("action log", "Player details corrected"),
    "entry.withdrawn": pgettext_lazy("action log", "Entry withdrawn"),
    "entry.disqualified": pgettext_lazy("action log", "Entry disqualified"),
    "entry.pin_issue": pgettext_lazy("action log", "Confirmation PIN issued"),
    "entries.check_in": pgettext_lazy("action log", "Players checked in"),
    "entry.check_in": pgettext_lazy("action log", "Player checked in"),
    "entry.check_out": pgettext_lazy("action log", "Player checked out"),
    "entry.seed": pgettext_lazy("action log", "Seed changed"),
    "partnership.register": pgettext_lazy("action log", "Partnership registered"),
    "partnership.substitute": pgettext_lazy("action log", "Partner substituted (T11)"),
    # stages and rounds
    "stage.create": pgettext_lazy("action log", "Stage created"),
    "stage.update": pgettext_lazy("action log", "Stage settings changed"),
    "stage.seed": pgettext_lazy("action log", "Stage seeded"),
    "stage.reorder": pgettext_lazy("action log", "Seed order changed"),
    "stage.add_entry": pgettext_lazy("action log", "Late entry added"),
    "stage.withdraw": pgettext_lazy("action log", "Player withdrawn"),
    "stage.disqualify": pgettext_lazy("action log", "Player disqualified"),
    "stage.finish": pgettext_lazy("action log", "Stage finished"),
    "round.publish": pgettext_lazy("action log", "Round published"),
    "round.close": pgettext_lazy("action log", "Round closed"),
    "round.call_time": pgettext_lazy("action log", "Time called (T3)"),
    "round.replace_player": pgettext_lazy("action log", "Player replaced"),
    # matches
    "match.override": pgettext_lazy("action log", "Result set by the director"),
    "match.time_called": pgettext_lazy("action log", "Placed when time was called (T3)"),
    "match.forfeit": pgettext_lazy("action log", "Forfeit (T7)"),
    "match.assign_referee": pgettext_lazy("action log", "Referee changed"),
    "hand.void": pgettext_lazy("action log", "Hand voided"),
    "table_feature_on": pgettext_lazy("action log", "Feature table on"),
    "table_feature_off": pgettext_lazy("action log", "Feature table off"),
    "result.dispute": pgettext_lazy("action log", "Result disputed"),
    "result.dispute.uphold": pgettext_lazy("action log", "Dispute resolved: result upheld"),
    "result.dispute.correct": pgettext_lazy("action log", "Dispute resolved: result corrected"),
    # notifications
    "webhook.create": pgettext_lazy("action log", "Webhook added"),
    "webhook.disable": pgettext_lazy("action log", "Webhook disabled"),
    "webhook.ping": pgettext_lazy("action log", "Webhook test event sent"),
}

# A target whose object is gone (a revoked role, a merged player) or of an unknown kind.
KINDS: dict[str, Promise] = {
    "tournament.tournament": pgettext_lazy("action log", "tournament"),
    "tournament.table": pgettext_lazy("action log", "table"),
    "tournament.entry": pgettext_lazy("action log", "entry"),
    "tournament.player": pgettext_lazy("action log", "player"),
    "tournament.refereetoken": pgettext_lazy("action log", "credential"),
    "tournament.tournamentrole": pgettext_lazy("action log", "role"),
    "tournament.directorinvitation": pgettext_lazy("action log", "invitation"),
    "tournament.partnership": pgettext_lazy("action log", "partnership"),
    "brackets.stage": pgettext_lazy("action log", "stage"),
    "brackets.round": pgettext_lazy("action log", "round"),
    "scoring.match": pgettext_lazy("action log", "match"),
    "scoring.resultdispute": pgettext_lazy("action log", "dispute"),
    "scoring.hand": pgettext_lazy("action log", "hand"),
    "notify.webhookendpoint": pgettext_lazy("action log", "webhook"),
}


def verb_label(verb: str) -> str:
    label = VERBS.get(verb)
    return str(label) if label is not None else verb


def round_name(rnd: Round, stage_name: str) -> str:
    """ "Qualifying, round 2"; "Final, final table" (the kind of a one-off round)."""
    if rnd.kind in (Round.Kind.SWISS, Round.Kind.KNOCKOUT):
        label = pgettext("action log", "round %(number)s") % {"number": rnd.number}
    else:
        label = choice_phrase(Round.Kind, rnd.kind)
    return pgettext("action log", "%(stage)s, %(round)s") % {"stage": stage_name, "round": label}


def reason_text(log: ActionLog) -> str:
    """The entry's reason as the director reads it: a director's own words as written, the
    fixed words a service records (a player added by hand or by a CSV import) in the page's
    language."""
    reason = log.reason or ""
    if log.verb == "players.add" and reason == "Added by hand":
        return pgettext("action log", "Added by hand")
    if log.verb in ("players.add", "players.import") and reason.startswith("CSV import"):
        source = reason[len("CSV import") :].strip()
        if source:
            return pgettext("action log", "CSV import of %(file)s") % {"file": source}
        return pgettext("action log", "CSV import")
    return stored_reason_text(reason)


@dataclass(frozen=True)
class LogRow:
    log: ActionLog
    who: str
    what: str
    target: str
    target_url: str
    reason: str = ""
    # "Name: Imani Brown → Imani Browne", one per field, for data recorded as
    # {field: {"before": ..., "after": ...}} (player.update); empty otherwise.
    changes: tuple[str, ...] = ()
    # The rest of the recorded data as "key: value" lines, ids named (log_details).
    details: tuple[str, ...] = ()


# Fields a change line names in the page's language (others by their key).
CHANGE_FIELDS: dict[str, Promise] = {
    "name": pgettext_lazy("action log", "Name"),
    "nickname": pgettext_lazy("action log", "Nickname"),
    "club": pgettext_lazy("action log", "Club"),
    "country": pgettext_lazy("action log", "Country"),
    "rating": pgettext_lazy("action log", "Rating"),
}


def change_lines(data: Any, verb: str = "") -> tuple[str, ...]:
    """Readable lines for a log's ``{field: {"before": ..., "after": ...}}`` data, and the
    count of a check-in of many players at once."""
    if not isinstance(data, dict) or not data:
        return ()
    if verb == "entries.check_in" and isinstance(count := data.get("count"), int):
        return (npgettext("action log", "%(n)s player", "%(n)s players", count) % {"n": count},)
    if not all(isinstance(v, dict) and set(v) == {"before", "after"} for v in data.values()):
        return ()

    def shown(value: Any) -> str:
        return "—" if value in (None, "") else str(value)

    return tuple(
        f"{CHANGE_FIELDS.get(key, key)}: {shown(v['before'])} \u2192 {shown(v['after'])}"
        for key, v in data.items()
    )


Names = dict[tuple[str, str], str]


def _ids(logs: Iterable[ActionLog], target_type: str) -> list[int]:
    return [
        pk
        for x in logs
        if x.target_type == target_type and (pk := parse_int(x.target_id)) is not None
    ]


def _rounds(t: Tournament, ids: list[int]) -> dict[int, str]:
    rounds = Round.objects.filter(pk__in=ids, stage__tournament=t).select_related("stage")
    return {r.pk: round_name(r, r.stage.name) for r in rounds}


def _matches(t: Tournament, ids: list[int]) -> dict[int, str]:
    """A match as its table in its round ("Qualifying, round 2 · table 8"), else its label."""
    out: dict[int, str] = {}
    links = RoundMatch.objects.filter(match_id__in=ids, round__stage__tournament=t).select_related(
        "round__stage"
    )
    for link in links:
        out[link.match_id] = pgettext("action log", "%(round)s · table %(table)s") % {
            "round": round_name(link.round, link.round.stage.name),
            "table": link.table_number,
        }
    missing = [i for i in ids if i not in out]
    for pk, label in Match.objects.filter(pk__in=missing, tournament=t).values_list("pk", "label"):
        out[pk] = label or pgettext("action log", "match #%(id)s") % {"id": pk}
    return out


def _stages(t: Tournament, ids: list[int]) -> dict[int, str]:
    return {
        s.pk: pgettext("action log", "stage %(number)s, %(name)s")
        % {"number": s.number, "name": s.name}
        for s in Stage.objects.filter(pk__in=ids, tournament=t)
    }


def _entries(t: Tournament, ids: list[int]) -> dict[int, str]:
    qs = Entry.objects.filter(pk__in=ids, tournament=t).values_list("pk", "player__name")
    return dict(qs)


def _players(t: Tournament, ids: list[int]) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))


def _tables(t: Tournament, ids: list[int]) -> dict[int, str]:
    return {
        pk: pgettext("action log", "table %(number)s") % {"number": number}
        for pk, number in Table.objects.filter(pk__in=ids, tournament=t).values_list("pk", "number")
    }


def _tokens(t: Tournament, ids: list[int]) -> dict[int, str]:
    tokens = RefereeToken.objects.filter(pk__in=ids, role__tournament=t).select_related(
        "role__user"
    )
    return {
        token.pk: pgettext("action log", "credential %(prefix)s of %(referee)s")
        % {"prefix": token.prefix, "referee": user_label(token.role.user)}
        for token in tokens
    }


def _roles(t: Tournament, ids: list[int]) -> dict[int, str]:
    roles = TournamentRole.objects.filter(pk__in=ids, tournament=t).select_related("user")
    return {
        role.pk: pgettext("action log", "%(role)s %(name)s")
        % {"role": choice_phrase(TournamentRole.Role, role.role), "name": user_label(role.user)}
        for role in roles
    }


def _invitations(t: Tournament, ids: list[int]) -> dict[int, str]:
    """An invitation by its prefix and the director's label ("invitation Ab3… (Ana)")."""
    out: dict[int, str] = {}
    for pk, prefix, label in DirectorInvitation.objects.filter(
        pk__in=ids, tournament=t
    ).values_list("pk", "prefix", "label"):
        name = pgettext("action log", "invitation %(prefix)s") % {"prefix": prefix}
        out[pk] = f"{name} ({label})" if label else name
    return out


def _partnerships(t: Tournament, ids: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for pk, number, name in Partnership.objects.filter(pk__in=ids, tournament=t).values_list(
        "pk", "number", "name"
    ):
        label = pgettext("action log", "partnership %(number)s") % {"number": number}
        out[pk] = f"{label} ({name})" if name else label
    return out


def _disputes(t: Tournament, ids: list[int]) -> dict[int, str]:
    rows = list(
        ResultDispute.objects.filter(pk__in=ids, match__tournament=t).values_list(
            "pk", "match_id", "hand__number"
        )
    )
    matches = _matches(t, [match_id for _pk, match_id, _n in rows])
    return {
        pk: pgettext("action log", "hand %(number)s of %(match)s")
        % {"number": number, "match": matches.get(match_id, "")}
        for pk, match_id, number in rows
    }


def _hands(t: Tournament, ids: list[int]) -> dict[int, str]:
    """A hand as its number in its match ("hand 3 of Qualifying, round 1 · table 2"), never
    its row id."""
    rows = list(
        Hand.objects.filter(pk__in=ids, match__tournament=t).values_list("pk", "match_id", "number")
    )
    matches = _matches(t, [match_id for _pk, match_id, _n in rows])
    return {
        pk: pgettext("action log", "hand %(number)s of %(match)s")
        % {"number": number, "match": matches.get(match_id, "")}
        for pk, match_id, number in rows
    }


def _tournaments(t: Tournament, ids: list[int]) -> dict[int, str]:
    return {t.pk: t.name} if t.pk in ids else {}


NAMERS: dict[str, Callable[[Tournament, list[int]], dict[int, str]]] = {
    "brackets.round": _rounds,
    "brackets.stage": _stages,
    "scoring.match": _matches,
    "scoring.resultdispute": _disputes,
    "scoring.hand": _hands,
    "tournament.entry": _entries,
    "tournament.player": _players,
    "tournament.table": _tables,
    "tournament.refereetoken": _tokens,
    "tournament.tournamentrole": _roles,
    "tournament.directorinvitation": _invitations,
    "tournament.partnership": _partnerships,
    "tournament.tournament": _tournaments,
}


def target_names(t: Tournament, logs: list[ActionLog]) -> Names:
    """Readable names of the logs' targets (one query per kind of target present)."""
    out: Names = {}
    for kind, namer in NAMERS.items():
        if ids := _ids(logs, kind):
            for pk, name in namer(t, ids).items():
                out[kind, str(pk)] = name
    return out


def _target(log: ActionLog, names: Names) -> str:
    name = names.get((log.target_type, log.target_id))
    if name:
        return name
    data: dict[str, Any] = log.data if isinstance(log.data, dict) else {}
    if log.target_type == "notify.webhookendpoint" and data.get("url"):
        return str(data["url"])
    if log.target_type == "tournament.player" and data.get("merged_name"):
        return str(data["merged_name"])
    if not log.target_id:
        return ""
    kind = KINDS.get(log.target_type)
    return pgettext("action log", "%(kind)s #%(id)s") % {
        "kind": str(kind) if kind is not None else log.target_type.split(".")[-1],
        "id": log.target_id,
    }


def _target_url(t: Tournament, log: ActionLog) -> str:
    pk = parse_int(log.target_id)
    if pk is None:
        return ""
    if log.target_type == "brackets.round":
        return reverse("brackets:round", args=[t.slug, pk])
    if log.target_type == "brackets.stage":
        return reverse("brackets:seeding", args=[t.slug, pk])
    if log.target_type == "scoring.match":
        return reverse("scoring:match-referee", args=[pk])
    return ""


def _disputing_players(logs: list[ActionLog]) -> dict[int, str]:
    """Log id -> the player who raised a dispute on the table's phone ("D · Ana (player)"): a
    player has no account, so the entry has no actor, and "system" told the director nothing."""
    wanted = {
        log.pk: (data["match_id"], data["seat"])
        for log in logs
        if log.verb == "result.dispute"
        and log.actor_id is None
        and isinstance(data := log.data or {}, dict)
        and isinstance(data.get("match_id"), int)
        and isinstance(data.get("seat"), int)
    }
    if not wanted:
        return {}
    names = {
        (match_id, seat): name
        for match_id, seat, name in Seat.objects.filter(
            match_id__in={m for m, _s in wanted.values()}
        ).values_list("match_id", "seat", "entry__player__name")
    }
    return {
        pk: pgettext("action log", "%(seat)s · %(name)s (player)")
        % {"seat": SEAT_LETTERS[seat] if seat < len(SEAT_LETTERS) else seat, "name": name}
        for pk, (match_id, seat) in wanted.items()
        if (name := names.get((match_id, seat)))
    }


def _dispute_notes(t: Tournament, logs: list[ActionLog]) -> dict[int, str]:
    """Log id -> the player's note, for disputes logged before the entry kept it as its
    reason (the "Why" column showed "—"). One query, only when such entries are shown."""
    wanted = {
        log.pk: pk
        for log in logs
        if log.verb == "result.dispute"
        and not log.reason
        and log.target_type == "scoring.resultdispute"
        and (pk := parse_int(log.target_id)) is not None
    }
    if not wanted:
        return {}
    notes = dict(
        ResultDispute.objects.filter(pk__in=set(wanted.values()), match__tournament=t)
        .exclude(note="")
        .values_list("pk", "note")
    )
    return {log_id: notes[pk] for log_id, pk in wanted.items() if pk in notes}


def _details(t: Tournament, logs: list[ActionLog]) -> dict[int, tuple[str, ...]]:
    """The data of entries without change lines, readable (one query per kind of id)."""
    plain = [log for log in logs if log.data and not change_lines(log.data, log.verb)]
    if not plain:
        return {}

    def namer(kind: str, ids: list[int]) -> dict[int, str]:
        name = NAMERS.get(kind)
        return name(t, ids) if name is not None else {}

    stages = list(
        Stage.objects.filter(tournament=t).annotate(seeded=Count("entrants")).order_by("number")
    )
    pairs = [s.pk for s in stages if s.pairs]
    return detail_lines(plain, namer, pairs_stages=pairs, stage_kinds=stage_kinds(stages))


def stage_kinds(stages: Sequence[Stage]) -> dict[int, str]:
    """Stage id -> its kind as the stages page names it: a knockout whose field is the
    previous stage's cut and that cut the final table is "Final table only" (T6); a pairs
    knockout plays partnerships down to the final (T10). ``stages`` in order."""
    kinds: dict[int, str] = {}
    previous: Stage | None = None
    for stage in stages:
        cut = previous.cut_size if previous is not None else None
        seeded = int(getattr(stage, "seeded", 0) or 0)  # annotated by the caller
        if previous is not None and cut is None and seeded:
            # Added after its previous stage ended (T6): its field is who it was seeded with.
            cut = seeded // 2 if stage.pairs else seeded
        kinds[stage.pk] = stage_kind_label(stage, cut)
        previous = stage
    return kinds


def log_rows(t: Tournament, logs: list[ActionLog]) -> list[LogRow]:
    names = target_names(t, logs)
    players = _disputing_players(logs)
    notes = _dispute_notes(t, logs)
    details = _details(t, logs)
    return [
        LogRow(
            log=log,
            who=user_label(log.actor)
            if log.actor
            else players.get(log.pk) or pgettext("action log", "system"),
            what=verb_label(log.verb),
            target=_target(log, names),
            target_url=_target_url(t, log),
            reason=notes.get(log.pk) or reason_text(log),
            changes=change_lines(log.data, log.verb),
            details=details.get(log.pk, ()),
        )
        for log in logs
    ]


def verb_choices(verbs: Iterable[str]) -> list[tuple[str, str]]:
    """The filter's options: every verb present, by label in the page's language."""
    return sorted(((v, verb_label(v)) for v in set(verbs)), key=lambda c: (c[1].lower(), c[0]))
