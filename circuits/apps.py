from django.apps import AppConfig


class CircuitsConfig(AppConfig):
    name = "circuits"
    verbose_name = "Circuits"

    def ready(self) -> None:
        # A tournament's pages and a player's profile link the circuits without importing
        # them (layering): circuits registers its links (core.page_links).
        from django.db.models.signals import post_delete, post_save, pre_delete

        from circuits import receivers
        from circuits.models import Circuit, CircuitTournament
        from circuits.selectors import player_circuit_links, tournament_circuit_links
        from core.page_links import player_linker_register, tournament_linker_register

        tournament_linker_register(tournament_circuit_links)
        player_linker_register(player_circuit_links)
        # The "Part of" line is cached per tournament version: a change bumps it.
        member = receivers.on_member_changed
        post_save.connect(member, sender=CircuitTournament, dispatch_uid="circuits.m.save")
        post_delete.connect(member, sender=CircuitTournament, dispatch_uid="circuits.m.delete")
        post_save.connect(receivers.on_circuit_saved, sender=Circuit, dispatch_uid="circuits.save")
        pre_delete.connect(
            receivers.on_circuit_deleting, sender=Circuit, dispatch_uid="circuits.delete"
        )
