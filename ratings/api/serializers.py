from __future__ import annotations

from rest_framework import serializers


class RatingChangeOut(serializers.Serializer[object]):
    match = serializers.IntegerField(source="match_id", help_text="Match id.")
    tournament = serializers.IntegerField(source="tournament_id", help_text="Tournament id.")
    rated_at = serializers.DateTimeField()
    placing = serializers.IntegerField(min_value=1, max_value=4)
    table_size = serializers.IntegerField(min_value=2, max_value=4)
    rating_before = serializers.IntegerField(source="display_before")
    rating_after = serializers.IntegerField(source="display_after")
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()


class PlayerRatingOut(serializers.Serializer[object]):
    player = serializers.IntegerField(help_text="Player id.")
    name = serializers.CharField()
    rating = serializers.IntegerField(
        allow_null=True, help_text="1000 + 40 (mu - 3 sigma); null before the first rated match."
    )
    rated_matches = serializers.IntegerField()
    history = RatingChangeOut(many=True)
