"""The account page's time zone form."""

from __future__ import annotations

from typing import Any

from django import forms

from .time_zones import available_time_zones


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label="Time zone",
        help_text="Your email digests go out at 08:00 in this time zone.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [(name, name) for name in available_time_zones()]
