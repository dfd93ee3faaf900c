from typing import Any

app_name = "brackets-api"
urlpatterns: list[Any] = []
