from django.urls import path

from circuits.api import views

urlpatterns = [
    path(
        "circuits/<slug:slug>/standings/",
        views.CircuitStandingsApi.as_view(),
        name="circuit-standings",
    ),
]
