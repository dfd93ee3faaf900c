"""Director pages of the notify app, under ``/director/tournaments/<slug>/``."""

from django.urls import path

from notify import views

app_name = "notify"

T = "director/tournaments/<slug:slug>/"

urlpatterns = [
    path(T + "webhooks/", views.WebhooksView.as_view(), name="webhooks"),
    path(
        T + "webhooks/<int:endpoint_id>/disable/",
        views.WebhookDisableView.as_view(),
        name="webhook-disable",
    ),
    path(
        T + "webhooks/<int:endpoint_id>/ping/",
        views.WebhookPingView.as_view(),
        name="webhook-ping",
    ),
    path(T + "notifications/emails/", views.PlayerEmailsView.as_view(), name="emails"),
]
