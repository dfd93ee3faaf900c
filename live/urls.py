from typing import Any

app_name = "live"
urlpatterns: list[Any] = []
