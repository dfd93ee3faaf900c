"""The project's URLs plus ``POST /bench/floor/<match_id>/`` and ``POST /bench/frame/<match_id>/``
(bench only)."""

from django.urls import path

from bench.floor_app.views import FrameHandApi, floor_hand
from config.urls import handler404, handler500
from config.urls import urlpatterns as site_urlpatterns

urlpatterns = [
    path("bench/floor/<int:match_id>/", floor_hand, name="bench-floor"),
    path("bench/frame/<int:match_id>/", FrameHandApi.as_view(), name="bench-frame"),
    *site_urlpatterns,
]

__all__ = ["handler404", "handler500", "urlpatterns"]
