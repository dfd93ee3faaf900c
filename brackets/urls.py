from typing import Any

app_name = "brackets"
urlpatterns: list[Any] = []
