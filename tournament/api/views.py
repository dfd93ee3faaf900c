"""Thin API views of the tournament app: input serializer → service → output serializer."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.refusals import input_split
from core.api.schema import error_response
from core.exceptions import application_error_merged
from tournament import selectors, services
from tournament.api import serializers as s
from tournament.api.base import ApiPagination, ApiView, TournamentScopedMixin
from tournament.api.permissions import director_read

# Sign-in and "who am I" live in tournament.api.session; re-exported for the URLconf.
from tournament.api.session import MeApi as MeApi
from tournament.api.session import SessionLoginApi as SessionLoginApi
from tournament.api.session import SessionLogoutApi as SessionLogoutApi
from tournament.api.session import me_payload as me_payload
from tournament.models import Entry, Player, RefereeToken, Table, TournamentRole

# -- tournaments ----------------------------------------------------------------------------------


class TournamentListApi(ApiView):
    pagination_class = ApiPagination

    @extend_schema(
        responses=s.TournamentOutput(many=True),
        tags=["tournaments"],
        description="Tournaments you may see: every non-draft one, and the drafts you direct.",
    )
    def get(self, request: Request) -> Response:
        # Drafts are invisible to anyone who does not direct them (issue 12 finding 3).
        qs = selectors.tournament_list(user=request.user)
        return self.paginated(request, qs, s.TournamentOutput)

    @extend_schema(
        request=s.TournamentCreateInput,
        responses={201: s.TournamentOutput},
        tags=["tournaments"],
        description=(
            "Create a tournament (a draft) that you direct. Staff and existing directors may. "
            "`ruleset_preset` picks a preset of RULES.md §1 and `ruleset_overrides` changes "
            "single options of it (each checked by the rules engine: a 400 names "
            "`ruleset_overrides.<option>`); the answer's `ruleset` is the effective ruleset. "
            "Move it on with `POST /api/tournaments/{slug}/status/` (registration, running)."
        ),
    )
    def post(self, request: Request) -> Response:
        data = s.TournamentCreateInput(data=request.data)
        if not data.is_valid():
            # Every refused field in one answer: the service's checks of the fields the
            # input accepted join the input's refusals (as the create form shows them).
            accepted, refusals = input_split(data)
            if services.tournament_create_allowed(actor=request.user):  # else: no slug probe
                refusals += services.tournament_create_refusals(data=accepted)
            raise application_error_merged(refusals)
        tournament = services.tournament_create(actor=request.user, **data.validated_data)
        return Response(s.TournamentOutput(tournament).data, status=status.HTTP_201_CREATED)


class TournamentDetailApi(TournamentScopedMixin):
    @extend_schema(responses=s.TournamentOutput, tags=["tournaments"])
    def get(self, request: Request, slug: str) -> Response:
        return Response(s.TournamentOutput(self.tournament).data)

    @extend_schema(
        request=s.TournamentUpdateInput, responses=s.TournamentOutput, tags=["tournaments"]
    )
    def patch(self, request: Request, slug: str) -> Response:
        data = s.TournamentUpdateInput(data=request.data, partial=True)
        if not data.is_valid():
            # Every refused field in one answer, as the director's settings form: the
            # service's checks of the fields the input accepted join the input's refusals.
            accepted, refusals = input_split(data)
            raise application_error_merged(
                [
                    *refusals,
                    *services.tournament_update_refusals(tournament=self.tournament, data=accepted),
                ]
            )
        tournament = services.tournament_update(
            tournament=self.tournament, actor=request.user, data=data.validated_data
        )
        return Response(s.TournamentOutput(tournament).data)


class TournamentStatusApi(TournamentScopedMixin):
    @extend_schema(
        request=s.StatusChangeInput,
        responses={200: s.TournamentOutput, 409: error_response(409, "Not a forward move")},
        tags=["tournaments"],
        description=(
            "Move the lifecycle forward: draft -> registration -> running -> finished "
            "(logged). Publishing the first round makes it running, and the final table's end "
            "makes it finished, by themselves. Finished is read-only for everyone."
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        data = s.StatusChangeInput(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_status_change(
            tournament=self.tournament, actor=self.actor, **data.validated_data
        )
        return Response(s.TournamentOutput(tournament).data)


class TournamentReopenApi(TournamentScopedMixin):
    @extend_schema(
        request=s.ReasonInput,
        responses={200: s.TournamentOutput, 409: error_response(409, "Not finished")},
        tags=["tournaments"],
        description="Reopen a finished tournament (back to running) with a reason, logged.",
    )
    def post(self, request: Request, slug: str) -> Response:
        data = s.ReasonInput(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_reopen(
            tournament=self.tournament, actor=self.actor, reason=data.validated_data["reason"]
        )
        return Response(s.TournamentOutput(tournament).data)


# -- players --------------------------------------------------------------------------------------


class PlayerListApi(ApiView):
    pagination_class = ApiPagination

    @extend_schema(
        parameters=[OpenApiParameter("search", str, description="name or nickname contains")],
        responses=s.PlayerOutput(many=True),
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        qs = selectors.player_list(search=request.query_params.get("search"), user=request.user)
        return self.paginated(request, qs, s.PlayerOutput)

    @extend_schema(request=s.PlayerInput, responses={201: s.PlayerOutput}, tags=["players"])
    def post(self, request: Request) -> Response:
        data = s.PlayerInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_create(actor=request.user, **data.validated_data)
        return Response(s.PlayerOutput(player).data, status=status.HTTP_201_CREATED)


class PlayerDetailApi(ApiView):
    def _get(self, player_id: int) -> Player:
        return selectors.player_get(player_id=player_id, user=self.request.user)

    @extend_schema(responses=s.PlayerOutput, tags=["players"])
    def get(self, request: Request, player_id: int) -> Response:
        return Response(s.PlayerOutput(self._get(player_id)).data)

    @extend_schema(request=s.PlayerUpdateInput, responses=s.PlayerOutput, tags=["players"])
    def patch(self, request: Request, player_id: int) -> Response:
        data = s.PlayerUpdateInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        player = services.player_update(
            player=self._get(player_id), actor=request.user, data=data.validated_data
        )
        return Response(s.PlayerOutput(player).data)


# -- entries --------------------------------------------------------------------------------------


class EntryListApi(TournamentScopedMixin):
    pagination_class = ApiPagination

    @extend_schema(responses=s.EntryOutput(many=True), tags=["entries"])
    def get(self, request: Request, slug: str) -> Response:
        return self.paginated(
            request, selectors.entry_list(tournament=self.tournament), s.EntryOutput
        )

    @extend_schema(request=s.EntryCreateInput, responses={201: s.EntryOutput}, tags=["entries"])
    def post(self, request: Request, slug: str) -> Response:
        data = s.EntryCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        # A player the director may not see (another director's draft) is an unknown id.
        player = selectors.player_find(player_id=data.validated_data["player"], user=request.user)
        if player is None:
            raise selectors.player_unknown(field="player")
        entry = services.entry_create(
            tournament=self.tournament,
            actor=request.user,
            player=player,
            seed=data.validated_data["seed"],
        )
        return Response(s.EntryOutput(entry).data, status=status.HTTP_201_CREATED)


class EntryDetailApi(TournamentScopedMixin):
    def _entry(self, entry_id: int) -> Entry:
        return self.scoped_get(Entry.objects.select_related("player", "tournament"), entry_id)

    @extend_schema(responses=s.EntryOutput, tags=["entries"])
    def get(self, request: Request, slug: str, entry_id: int) -> Response:
        return Response(s.EntryOutput(self._entry(entry_id)).data)

    @extend_schema(request=s.EntryUpdateInput, responses=s.EntryOutput, tags=["entries"])
    def patch(self, request: Request, slug: str, entry_id: int) -> Response:
        data = s.EntryUpdateInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        entry = services.entry_update(
            entry=self._entry(entry_id), actor=request.user, data=data.validated_data
        )
        return Response(s.EntryOutput(entry).data)


class EntryWithdrawApi(EntryDetailApi):
    # POST only: the GET/PATCH of the entry live on the entry's own address.
    http_method_names = ["post", "options"]

    @extend_schema(request=s.ReasonInput, responses=s.EntryOutput, tags=["entries"])
    def post(self, request: Request, slug: str, entry_id: int) -> Response:
        data = s.ReasonInput(data=request.data)
        data.is_valid(raise_exception=True)
        entry = services.entry_withdraw(
            entry=self._entry(entry_id), actor=request.user, reason=data.validated_data["reason"]
        )
        return Response(s.EntryOutput(entry).data)


class EntryDisqualifyApi(EntryDetailApi):
    # POST only: the GET/PATCH of the entry live on the entry's own address.
    http_method_names = ["post", "options"]

    @extend_schema(request=s.ReasonInput, responses=s.EntryOutput, tags=["entries"])
    def post(self, request: Request, slug: str, entry_id: int) -> Response:
        data = s.ReasonInput(data=request.data)
        data.is_valid(raise_exception=True)
        entry = services.entry_disqualify(
            entry=self._entry(entry_id), actor=request.user, reason=data.validated_data["reason"]
        )
        return Response(s.EntryOutput(entry).data)


# -- tables ---------------------------------------------------------------------------------------


class TableListApi(TournamentScopedMixin):
    pagination_class = ApiPagination

    @extend_schema(responses=s.TableOutput(many=True), tags=["tables"])
    def get(self, request: Request, slug: str) -> Response:
        return self.paginated(
            request, selectors.table_list(tournament=self.tournament), s.TableOutput
        )

    @extend_schema(request=s.TableInput, responses={201: s.TableOutput}, tags=["tables"])
    def post(self, request: Request, slug: str) -> Response:
        data = s.TableInput(data=request.data)
        data.is_valid(raise_exception=True)
        table: Table = services.table_create(
            tournament=self.tournament, actor=request.user, **data.validated_data
        )
        return Response(s.TableOutput(table).data, status=status.HTTP_201_CREATED)


# -- roles, referees, tokens, action log (directors only) -----------------------------------------


class RoleListApi(TournamentScopedMixin):
    pagination_class = ApiPagination

    @extend_schema(responses=s.RoleOutput(many=True), tags=["referees"])
    @director_read
    def get(self, request: Request, slug: str) -> Response:
        return self.paginated(
            request, selectors.role_list(tournament=self.tournament), s.RoleOutput
        )

    @extend_schema(
        request=s.RoleInput,
        responses={201: s.RoleOutput},
        tags=["referees"],
        description=(
            "Make an existing account (never a staff or superuser one) a co-director. Only for "
            "accounts holding the Django permission `tournament.add_tournamentrole` "
            "(superusers; staff given it in the admin): the staff flag alone is refused (403)."
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        data = s.RoleInput(data=request.data)
        data.is_valid(raise_exception=True)
        role = services.role_grant(
            tournament=self.tournament,
            actor=request.user,
            user=selectors.user_get_or_400(user_id=data.validated_data["user"]),
            role=data.validated_data["role"],
        )
        return Response(s.RoleOutput(role).data, status=status.HTTP_201_CREATED)


class RoleDetailApi(TournamentScopedMixin):
    @extend_schema(
        responses={
            204: None,
            403: error_response(
                403,
                "Not a director here, or a director role this director may not remove "
                "(`director_is_owner`, `director_not_invited_by_you`; rule `co_directors`)",
            ),
            409: error_response(
                409, "The last director (`last_director`), or the tournament is finished"
            ),
        },
        tags=["referees"],
        description=(
            "Remove a role. Any director removes a referee (its credentials go with it). A "
            "director role: its holder (stepping down), the director who invited them, the "
            "director who created the tournament (whom no co-director removes) or a superuser; "
            "one director always remains."
        ),
    )
    def delete(self, request: Request, slug: str, role_id: int) -> Response:
        role = self.scoped_get(TournamentRole.objects.select_related("tournament"), role_id)
        services.role_revoke(role=role, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RefereeCreateApi(TournamentScopedMixin):
    @extend_schema(
        request=s.RefereeCreateInput,
        responses={201: s.RoleOutput},
        tags=["referees"],
        description=(
            "Create a referee of this tournament: a password-less identity that never signs "
            "in and acts only through a credential (token / link). `username` is its name, "
            "unique in this tournament whatever its case (400 `username_taken` names the "
            "field); another tournament may have a referee of the same name, and no site "
            "account is consulted."
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        data = s.RefereeCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        role = services.referee_create(
            tournament=self.tournament, actor=request.user, **data.validated_data
        )
        return Response(s.RoleOutput(role).data, status=status.HTTP_201_CREATED)


class RefereeTokenListApi(TournamentScopedMixin):
    pagination_class = ApiPagination

    @extend_schema(responses=s.RefereeTokenOutput(many=True), tags=["referees"])
    @director_read
    def get(self, request: Request, slug: str) -> Response:
        return self.paginated(
            request,
            selectors.referee_token_list(tournament=self.tournament),
            s.RefereeTokenOutput,
        )

    @extend_schema(
        request=s.RefereeTokenIssueInput,
        responses={201: s.RefereeTokenOutput},
        tags=["referees"],
        description=(
            "Issue a personal referee token (192 random bits). Use it as "
            "`Authorization: Token <key>` (or `Bearer <key>`), or open `link` on a phone."
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        data = s.RefereeTokenIssueInput(data=request.data)
        data.is_valid(raise_exception=True)
        token = services.referee_token_issue(
            tournament=self.tournament,
            actor=request.user,
            user=selectors.referee_user_or_400(user_id=data.validated_data["user"], field="user"),
            label=data.validated_data["label"],
        )
        return Response(s.RefereeTokenOutput(token).data, status=status.HTTP_201_CREATED)


class RefereeTokenRevokeApi(TournamentScopedMixin):
    @extend_schema(request=None, responses=s.RefereeTokenOutput, tags=["referees"])
    def post(self, request: Request, slug: str, token_id: int) -> Response:
        token = self.scoped_get(
            RefereeToken.objects.select_related("role__tournament", "role__user"),
            token_id,
            field="role__tournament",
        )
        token = services.referee_token_revoke(token=token, actor=request.user)
        return Response(s.RefereeTokenOutput(token).data)


class ActionLogListApi(TournamentScopedMixin):
    pagination_class = ApiPagination

    @extend_schema(responses=s.ActionLogOutput(many=True), tags=["tournaments"])
    @director_read
    def get(self, request: Request, slug: str) -> Response:
        return self.paginated(
            request, selectors.action_log_list(tournament=self.tournament), s.ActionLogOutput
        )
