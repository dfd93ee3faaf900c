from django.urls import path

from tournament import views

app_name = "tournament"
urlpatterns = [
    path("ref/", views.referee_link, name="referee-link"),
    path("director/", views.director_home, name="director-home"),
    path("director/tournaments/<slug:slug>/lifecycle/", views.lifecycle, name="lifecycle"),
    path("director/tournaments/<slug:slug>/referees/", views.referees, name="referees"),
]
