from django.apps import AppConfig


class CircuitsConfig(AppConfig):
    name = "circuits"
    verbose_name = "Circuits"

    def ready(self) -> None:
        # A tournament's pages and a player's profile link the circuits without importing
        # them (layering): circuits registers its links (core.page_links).
        from circuits.selectors import player_circuit_links, tournament_circuit_links
        from core.page_links import player_linker_register, tournament_linker_register

        tournament_linker_register(tournament_circuit_links)
        player_linker_register(player_circuit_links)
