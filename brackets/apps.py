from django.apps import AppConfig


class BracketsConfig(AppConfig):
    name = "brackets"
    verbose_name = "Brackets"

    def ready(self) -> None:
        # brackets handles scoring's domain events; scoring never imports brackets (layering).
        from brackets import receivers
        from brackets.selectors import match_result_followed
        from core.events import match_finished, match_reopened
        from core.result_readers import result_reader_register

        match_finished.connect(receivers.on_match_finished, dispatch_uid="brackets.round_check")
        match_reopened.connect(receivers.on_match_reopened, dispatch_uid="brackets.round_reopen")
        # A correction of a result the bracket already advanced on must say so (override).
        result_reader_register(match_result_followed)
