from typing import Any

app_name = "live-api"
urlpatterns: list[Any] = []
