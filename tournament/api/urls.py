from typing import Any

app_name = "tournament-api"
urlpatterns: list[Any] = []
