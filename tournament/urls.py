from django.urls import path

from tournament import invitation_views, views

app_name = "tournament"
urlpatterns = [
    path("ref/", views.referee_link, name="referee-link"),
    # A co-director invitation's link is /invite/#<key>: the key never reaches the server in a
    # path (docs/security.md).
    path("invite/", invitation_views.director_invitation, name="director-invitation"),
    path("director/", views.director_home, name="director-home"),
    path("director/tournaments/<slug:slug>/lifecycle/", views.lifecycle, name="lifecycle"),
    path("director/tournaments/<slug:slug>/referees/", views.referees, name="referees"),
    path(
        "director/tournaments/<slug:slug>/directors/", invitation_views.directors, name="directors"
    ),
]
