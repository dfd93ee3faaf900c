from django.urls import path

from notify.api import views

app_name = "notify-api"

_T = "tournaments/<slug:slug>/webhooks/"
urlpatterns = [
    path(_T, views.WebhookListApi.as_view(), name="webhook-list"),
    path(f"{_T}<int:endpoint_id>/", views.WebhookDetailApi.as_view(), name="webhook"),
    path(
        f"{_T}<int:endpoint_id>/disable/",
        views.WebhookDisableApi.as_view(),
        name="webhook-disable",
    ),
    path(f"{_T}<int:endpoint_id>/ping/", views.WebhookPingApi.as_view(), name="webhook-ping"),
    path(
        f"{_T}<int:endpoint_id>/deliveries/",
        views.WebhookDeliveryListApi.as_view(),
        name="webhook-deliveries",
    ),
]
