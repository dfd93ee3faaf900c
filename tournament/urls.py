from django.urls import path

from tournament import views

app_name = "tournament"
urlpatterns = [
    path("ref/<str:key>/", views.referee_link, name="referee-link"),
    path("director/", views.director_home, name="director-home"),
]
