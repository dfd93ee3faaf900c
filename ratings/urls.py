from django.urls import path

from ratings import merge_views, views

app_name = "ratings"
urlpatterns = [
    path("players/", views.player_directory_page, name="player-directory"),
    path("players/duplicates/", merge_views.duplicates_page, name="player-duplicates"),
    path("players/<int:player_id>/", views.player_profile_page, name="player-profile"),
    path("stats/<slug:slug>/", views.tournament_leaders_page, name="tournament-leaders"),
]
