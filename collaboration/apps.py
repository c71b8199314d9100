from __future__ import annotations

from django.apps import AppConfig


class CollaborationConfig(AppConfig):
    name = "collaboration"

    def ready(self) -> None:
        # Two works the importer finds to be one: invitations anchored on either keep the survivor.
        from publications.importers.writer import work_merge_hook_register

        from .services.work_merges import invitation_anchors_follow_work_merge

        work_merge_hook_register(invitation_anchors_follow_work_merge)
