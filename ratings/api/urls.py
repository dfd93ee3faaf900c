from django.urls import path

from ratings.api import views

urlpatterns = [
    path("players/<int:player_id>/rating/", views.PlayerRatingApi.as_view(), name="player-rating"),
]
