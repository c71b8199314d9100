from __future__ import annotations

from django.apps import AppConfig


class ClaimsConfig(AppConfig):
    name = "claims"

    def ready(self) -> None:
        # The name resolver (researchers, below claims) hands its links and close calls to the
        # moderation queue this app owns.
        from researchers.resolution import decision_recorder_register

        from .services.same_person import name_resolutions_record

        decision_recorder_register(name_resolutions_record)
