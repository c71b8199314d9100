"""A date that keeps the precision its source gave: a year, a year and month, or a full day.

ORCID, Crossref and BibTeX often know only the year or the month of a date; filling in the
first of January would invent a precision the source never claimed, so the missing parts stay
None and `iso` writes only what is known ("2021", "2021-02", "2021-02-15").
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PartialDate:
    year: int
    month: int | None = None
    day: int | None = None

    @property
    def precision(self) -> str:
        if self.day is not None:
            return "day"
        if self.month is not None:
            return "month"
        return "year"

    def iso(self) -> str:
        text = f"{self.year:04d}"
        if self.month is not None:
            text += f"-{self.month:02d}"
            if self.day is not None:
                text += f"-{self.day:02d}"
        return text

    @classmethod
    def from_parts(
        cls, year: object, month: object = None, day: object = None
    ) -> PartialDate | None:
        """The date the parts allow, or None without a usable year.

        A month or day out of range is dropped with everything finer than it, never raised:
        a source's impossible day 31 of February still tells the year and month.
        """
        year_number = _as_int(year)
        if year_number is None or not 1 <= year_number <= 9999:
            return None
        month_number = _as_int(month)
        if month_number is None or not 1 <= month_number <= 12:
            return cls(year_number)
        day_number = _as_int(day)
        if (
            day_number is None
            or not 1 <= day_number <= calendar.monthrange(year_number, month_number)[1]
        ):
            return cls(year_number, month_number)
        return cls(year_number, month_number, day_number)


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text)
    return None
