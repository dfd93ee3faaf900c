from typing import Any

app_name = "scoring-api"
urlpatterns: list[Any] = []
