"""The preferences form: one choice per category, of the deliveries that category offers."""

from __future__ import annotations

from typing import Any

from django import forms

from .kinds import DELIVERIES_BY_CATEGORY, NotificationCategory, delivery_label


class NotificationPreferencesForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for category, label in NotificationCategory.choices:
            self.fields[category] = forms.ChoiceField(
                label=label,
                choices=[
                    (delivery, delivery_label(delivery))
                    for delivery in DELIVERIES_BY_CATEGORY[category]
                ],
            )
