from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.exceptions import NotFoundError
from ratings.api.serializers import PlayerRatingOut
from ratings.selectors import player_profile


class PlayerRatingApi(APIView):
    """A player's rating and rating history across tournaments (public)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(responses=PlayerRatingOut, operation_id="players_rating_retrieve")
    def get(self, request: Request, player_id: int) -> Response:
        profile = player_profile(player_id=player_id, user=request.user)
        if profile is None:
            raise NotFoundError(f"No player {player_id}.", code="not_found")
        data = {
            "player": profile.player.pk,
            "name": profile.player.name,
            "rating": profile.rating,
            "rated_matches": profile.rated_matches,
            "history": profile.history,
        }
        return Response(PlayerRatingOut(data).data)
