from django.apps import AppConfig


class BracketsConfig(AppConfig):
    name = "brackets"
