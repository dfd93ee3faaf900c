"""Withdraw or disqualify a player from the seeding list (T7).

A player seated at a match still to play (scheduled or in play) loses it by forfeit: like the
Forfeit and Override pages (``brackets.views.matches``), the page then shows what will happen
(which table is forfeited, whether the others play on, the player's line) and asks to
confirm before it calls the service. A withdrawal that forfeits nothing stays one step, and
its message says what it did. What is forfeited is the service's own reading
(``stage_entry_withdraw_forfeits``, the rule of ``stage_entry_withdraw``), never the page's.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from brackets.forms import WithdrawForm
from brackets.models import Round, Stage, StageEntry
from brackets.services import (
    WithdrawalForfeit,
    stage_entry_withdraw,
    stage_entry_withdraw_forfeits,
)
from brackets.views.base import DirectorTournamentMixin
from brackets.views.seeding import seeding_url
from scoring.models import Match
from tournament.models import Entry
from tournament.services import entry_disqualify, entry_withdraw


def forfeit_line(forfeit: WithdrawalForfeit) -> str:
    """What the withdrawal does at one table (T7), as ``stage_entry_withdraw`` records it:
    "Table 7 (in play): the match is forfeited (T7). Luis, Eva and Sol play on at this table
    in a continuation match, from love: the hands played so far are not carried over."."""
    words = {
        "table": forfeit.table_number,
        "state": _("in play")
        if forfeit.status == Match.Status.IN_PROGRESS
        else _("not started yet"),
        "player": forfeit.player,
        "partner": forfeit.partner,
        "others": get_text_list(list(forfeit.others), _("and")),
    }
    if forfeit.partners:
        # R42: the player's partnership loses 0-6 and the other wins it; nobody plays on.
        return (
            _(
                "Table %(table)s (%(state)s): the match is forfeited: %(player)s and "
                "%(partner)s lose it 0–6 and %(others)s win it (T7, T10)."
            )
            % words
        )
    if len(forfeit.others) == 1:
        return (
            _("Table %(table)s (%(state)s): the match is forfeited: %(others)s wins it 6–0 (T7).")
            % words
        )
    if forfeit.plays_on:
        return (
            _(
                "Table %(table)s (%(state)s): the match is forfeited (T7). %(others)s play on "
                "at this table in a continuation match, from love: the hands played so far "
                "are not carried over."
            )
            % words
        )
    return (
        _(
            "Table %(table)s (%(state)s): the match is forfeited (T7). %(others)s cannot "
            "play on one player short: reseat them."
        )
        % words
    )


def player_lines(name: str, *, pairs: bool, in_final: bool = False) -> list[str]:
    """The withdrawn player's line for the forfeited match (T7, T4) and what follows; in a
    partnership final (``in_final``) the forfeit decides it, so no substitute can follow."""
    lines = [
        _(
            "%(player)s's line for that match: a 0–6 loss, placed last with 0 points and a "
            "six-love received, no match win (T7)."
        )
        % {"player": name},
        _(
            "%(player)s plays no further rounds and is placed after everyone still in the "
            "stage (T7)."
        )
        % {"player": name},
    ]
    if pairs and in_final:
        lines.append(
            _(
                "The forfeit decides the final: there is no next round in which a substitute "
                "could take their place (T7, T11)."
            )
        )
    elif pairs:
        lines.append(
            _(
                "A substitute named for them on Partnerships before the next round keeps "
                "the partnership in the stage (T11)."
            )
        )
    return lines


def forfeits_in_final(forfeits: list[WithdrawalForfeit]) -> bool:
    """Whether one of the forfeited matches is at a final table (T6, T10)."""
    return Round.objects.filter(
        kind=Round.Kind.FINAL, round_matches__match_id__in=[f.match_id for f in forfeits]
    ).exists()


def nothing_forfeited(stage: Stage) -> list[str]:
    """What withdrawing a player of ``stage`` with no open match does (T7, T11)."""
    if not stage.rounds.exists():
        return [_("The stage has not started: nothing is forfeited and they play no round of it.")]
    what = [
        _(
            "No match of theirs is open: nothing is forfeited; they play no further "
            "rounds and are placed after everyone still in the stage."
        )
    ]
    if stage.pairs:
        # T11: the partnership leaves the stage with them unless a substitute is named.
        what.append(
            _(
                "Their partnership leaves the stage with them unless you name a "
                "substitute for them on Partnerships before the next round is "
                "published (T11)."
            )
        )
    return what


class WithdrawView(DirectorTournamentMixin):
    """POST ``stages/<id>/entries/<entry>/withdraw/``: withdraw or disqualify (T7).

    With a match of the player's still to play, the first POST answers the confirmation
    step (the same values carried as hidden fields, and the matches it names); the POST
    with ``confirmed`` calls the service. If the matches changed in between (a table
    finished, a round was published), the step is shown again as things are now.

    GET (the seeding list's "Withdraw…" link: the list holds no form a row) is the
    withdrawal's form: the reason, the disqualification, and what it would forfeit now, so
    that one press gives the reason and confirms."""

    nav = "stages"

    def get(self, request: HttpRequest, slug: str, stage_id: int, entry_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        entry = self.get_entry(entry_id)
        in_stage = StageEntry.objects.filter(
            stage=stage, entry=entry, status=StageEntry.Status.ACTIVE
        ).exists()
        forfeits = stage_entry_withdraw_forfeits(stage=stage, entry=entry) if in_stage else []
        return self._confirm(
            stage,
            entry,
            {"reason": "", "disqualify": False},
            forfeits,
            changed=False,
            ask=True,
            notes=nothing_forfeited(stage) if in_stage and not forfeits else [],
        )

    def post(self, request: HttpRequest, slug: str, stage_id: int, entry_id: int) -> HttpResponse:
        stage = self.get_stage(stage_id)
        entry = self.get_entry(entry_id)
        form = WithdrawForm(request.POST)
        if not form.is_valid():
            if (request.POST.get("reason") or "").strip():  # given, but too long
                messages.error(request, " ".join(str(m) for m in form.errors.get("reason", [])))
            else:
                messages.error(
                    request,
                    _("Give a reason to withdraw %(player)s.") % {"player": entry.player.name},
                )
            return HttpResponseRedirect(seeding_url(slug, stage.pk))
        reason = form.cleaned_data["reason"]
        disqualify = form.cleaned_data["disqualify"]
        name = entry.player.name
        in_stage = StageEntry.objects.filter(
            stage=stage, entry=entry, status=StageEntry.Status.ACTIVE
        ).exists()
        if not in_stage:
            service = entry_disqualify if disqualify else entry_withdraw
            done = (_("%(player)s disqualified.") if disqualify else _("%(player)s withdrawn.")) % {
                "player": name
            }
            self.run(lambda: service(entry=entry, actor=request.user, reason=reason), success=done)
            return HttpResponseRedirect(seeding_url(slug, stage.pk))
        forfeits = stage_entry_withdraw_forfeits(stage=stage, entry=entry)
        shown = ",".join(str(f.match_id) for f in forfeits)
        confirmed = request.POST.get("confirmed") == "yes"
        if forfeits and (not confirmed or request.POST.get("forfeited", "") != shown):
            return self._confirm(stage, entry, form.cleaned_data, forfeits, changed=confirmed)
        done = (
            _("%(player)s disqualified (T7).") if disqualify else _("%(player)s withdrawn (T7).")
        ) % {"player": name}
        what = [forfeit_line(f) for f in forfeits] if forfeits else nothing_forfeited(stage)
        self.run(
            lambda: stage_entry_withdraw(
                stage=stage,
                actor=request.user,
                entry=entry,
                reason=reason,
                disqualify=disqualify,
            ),
            success=" ".join([done, *what]),
        )
        return HttpResponseRedirect(seeding_url(slug, stage.pk))

    def _confirm(
        self,
        stage: Stage,
        entry: Entry,
        data: dict[str, Any],
        forfeits: list[WithdrawalForfeit],
        *,
        changed: bool,
        ask: bool = False,
        notes: list[str] | None = None,
    ) -> HttpResponse:
        """The confirmation step; ``ask``: the first step, with the reason and the
        disqualification still to give (its ``notes``: what follows when nothing is
        forfeited)."""
        name = entry.player.name
        disqualify = bool(data["disqualify"])
        title = (_("Disqualify %(player)s") if disqualify else _("Withdraw %(player)s")) % {
            "player": name
        }
        return render(
            self.request,
            "brackets/withdraw_confirm.html",
            self.base_context(
                stage=stage,
                entry=entry,
                title=title,
                forfeits=[forfeit_line(f) for f in forfeits],
                player_lines=player_lines(
                    name, pairs=stage.pairs, in_final=forfeits_in_final(forfeits)
                ),
                reason=data["reason"],
                disqualify=disqualify,
                matches=",".join(str(f.match_id) for f in forfeits),
                changed=changed,
                ask=ask,
                notes=notes or [],
                back_url=seeding_url(self.tournament.slug, stage.pk) + "#seeds",
            ),
        )
