from __future__ import annotations

from django.apps import AppConfig


class ClaimsConfig(AppConfig):
    name = "claims"

    def ready(self) -> None:
        # The name resolver (researchers, below claims) hands its links and close calls to the
        # moderation queue this app owns.
        from publications.importers.writer import (
            work_author_refusals_register,
            work_merge_hook_register,
        )
        from researchers.resolution import decision_recorder_register

        from .services.same_person import name_resolutions_record
        from .services.work_merges import (
            accepted_splits_of_works,
            split_requests_follow_work_merge,
        )

        decision_recorder_register(name_resolutions_record)
        # Two works the importer finds to be one: split requests follow the survivor.
        work_merge_hook_register(split_requests_follow_work_merge)
        # An accepted split request: a later import does not put the researcher back.
        work_author_refusals_register(accepted_splits_of_works)
