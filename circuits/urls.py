from django.urls import path

from circuits import views

app_name = "circuits"
urlpatterns = [
    path("circuits/", views.circuit_list_page, name="list"),
    path("circuits/<slug:slug>/", views.circuit_page, name="detail"),
]
