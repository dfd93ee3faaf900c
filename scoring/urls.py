from django.urls import path

from scoring import dispute_views, move_views, views

app_name = "scoring"
urlpatterns = [
    path("matches/<int:match_id>/", views.match_referee, name="match-referee"),
    path("matches/<int:match_id>/panel/", views.match_panel, name="match-panel"),
    path("matches/<int:match_id>/moves/", move_views.match_moves, name="match-moves"),
    path("referee/", views.referee_home, name="referee-home"),
    path(
        "director/tournaments/<slug:slug>/",
        views.director_dashboard,
        name="director-dashboard",
    ),
    path(
        "director/tournaments/<slug:slug>/rows/",
        views.director_dashboard_rows,
        name="director-dashboard-rows",
    ),
    path(
        "director/tournaments/<slug:slug>/disputes/",
        dispute_views.dispute_queue,
        name="dispute-queue",
    ),
]
