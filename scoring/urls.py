from typing import Any

app_name = "scoring"
urlpatterns: list[Any] = []
