from typing import Any

app_name = "tournament"
urlpatterns: list[Any] = []
