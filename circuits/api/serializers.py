"""Schema of the circuit standings document (documentation only: the body is stored bytes)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class CircuitInfoOut(serializers.Serializer[Any]):
    name = serializers.CharField()
    slug = serializers.CharField()
    season = serializers.CharField()
    points_table = serializers.ListField(
        child=serializers.IntegerField(), help_text="Points per final place, 1st first."
    )
    stage_bonus = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Bonus per stage number reached (cumulative).",
    )


class CircuitTournamentOut(serializers.Serializer[Any]):
    tournament_id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    status = serializers.CharField()
    starts_on = serializers.DateField(allow_null=True)
    version = serializers.IntegerField()


class CircuitResultOut(serializers.Serializer[Any]):
    tournament_id = serializers.IntegerField()
    place = serializers.IntegerField()
    points = serializers.IntegerField()
    bonus = serializers.IntegerField()
    disqualified = serializers.BooleanField(help_text="A disqualified entry earns nothing.")


class CircuitRowOut(serializers.Serializer[Any]):
    rank = serializers.IntegerField(help_text="Equal ranks share a number (README Circuits).")
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    club = serializers.CharField(
        allow_blank=True, help_text="The player's club; blank for none (tells namesakes apart)."
    )
    country = serializers.CharField(
        allow_blank=True, help_text="The player's country, ISO 3166-1 alpha-2; blank for none."
    )
    points = serializers.IntegerField()
    events = serializers.IntegerField()
    best_place = serializers.IntegerField(allow_null=True)
    results = CircuitResultOut(many=True)


class CircuitStandingsOut(serializers.Serializer[Any]):
    circuit = CircuitInfoOut()
    tournaments = CircuitTournamentOut(many=True)
    standings = CircuitRowOut(many=True)
