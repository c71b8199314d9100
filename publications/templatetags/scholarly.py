"""Filters for imported scholarly text: readable LaTeX, JSON-LD, citation charts; and the URLs
of the records a work listing links to.

Imported text is untrusted. Every filter here escapes it first and only then adds markup of
its own, so a title holding <script> is shown as text whatever else happens to it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import orjson
from django import template
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from markupsafe import Markup, escape

register = template.Library()

_SYMBOLS = {
    "times": "×", "cdot": "·", "div": "÷", "pm": "±", "mp": "∓", "leq": "≤", "le": "≤", "geq": "≥",
    "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "equiv": "≡",
    "propto": "∝", "infty": "∞", "partial": "∂", "nabla": "∇", "sum": "∑", "prod": "∏", "int": "∫",
    "sqrt": "√", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩",
    "forall": "∀", "exists": "∃", "rightarrow": "→", "to": "→", "leftarrow": "←", "Rightarrow": "⇒",
    "leftrightarrow": "↔", "mapsto": "↦", "ldots": "…", "cdots": "⋯", "dots": "…", "circ": "∘",
    "degree": "°", "ell": "ℓ", "log": "log", "exp": "exp", "min": "min", "max": "max", "sin": "sin",
    "cos": "cos", "mathcal": "", "mathrm": "", "mathbf": "", "mathit": "", "text": "", "left": "",
    "right": "", "big": "", "Big": "", "quad": " ", "qquad": "  ", ",": " ", ";": " ", "!": "",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
    "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ",
    "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ",
    "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
_TEXT_COMMANDS = {
    "emph": "em",
    "textit": "em",
    "textbf": "strong",
    "texttt": "code",
    "underline": "u",
}
_ESCAPED_CHARS = {"%": "%", "&amp;": "&amp;", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}"}
# TeX math never starts or ends with a space inside its dollars; prices ("$5 and $6") do.
_MATH = re.compile(r"(?<!\\)\$(?=\S)(.+?)(?<=\S)(?<!\\)\$")
_COMMAND = re.compile(r"\\([A-Za-z]+|[,;!])\s?")
_TEXT_COMMAND = re.compile(r"\\(" + "|".join(_TEXT_COMMANDS) + r")\{([^{}]*)\}")
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}]*)\}|(\S))")


def _math_to_html(math: str) -> str:
    math = _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(1)), math)
    math = _SCRIPT.sub(
        lambda m: (
            f"<{'sup' if m.group(1) == '^' else 'sub'}>{m.group(2) or m.group(3)}"
            f"</{'sup' if m.group(1) == '^' else 'sub'}>"
        ),
        math,
    )
    return f'<span class="math">{math.replace("{", "").replace("}", "")}</span>'


@register.filter(is_safe=True)
def latex(value: Any) -> SafeString:
    """Readable text for the LaTeX that titles and abstracts carry: `$O(n^2)$` -> O(n²),
    `1.36$\\times$` -> 1.36×, `\\emph{x}` -> <em>x</em>, `43\\%` -> 43%. Anything else stays as
    written. The input is escaped before any markup is added."""
    text = str(conditional_escape(value if value is not None else ""))
    if "\\" not in text and "$" not in text:
        return mark_safe(text)  # noqa: S308 - escaped above
    text = _MATH.sub(lambda m: _math_to_html(m.group(1)), text)
    text = _TEXT_COMMAND.sub(
        lambda m: f"<{_TEXT_COMMANDS[m.group(1)]}>{m.group(2)}</{_TEXT_COMMANDS[m.group(1)]}>", text
    )
    for escaped, plain in _ESCAPED_CHARS.items():
        text = text.replace("\\" + escaped, plain)
    return mark_safe(text)  # noqa: S308 - built from escaped text and our own tags only


_JSON_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@register.filter(is_safe=True)
def jsonld(data: dict[str, Any]) -> SafeString:
    """A <script type="application/ld+json"> block; <, > and & are escaped inside the JSON so
    imported text cannot close the script element."""
    payload = orjson.dumps(data).decode().translate(_JSON_SCRIPT_ESCAPES)
    return mark_safe(f'<script type="application/ld+json">{payload}</script>')  # noqa: S308


CHART_WIDTH = 600
CHART_BAR_HEIGHT = 120


@register.simple_tag
def citations_chart(citations_by_year: dict[str, int] | None, *, years: int = 10) -> dict[str, Any]:
    """Bars for the last `years` years up to the latest year with citations, in SVG units of a
    600 x 120 plot (labels below it), scaled so the busiest year fills the height."""
    counts = {int(year): int(count) for year, count in (citations_by_year or {}).items()}
    if not counts:
        return {"bars": [], "max": 0}
    last = max(counts)
    first = max(min(counts), last - years + 1)
    peak = max(counts.get(year, 0) for year in range(first, last + 1)) or 1
    slot = CHART_WIDTH / (last - first + 1)
    bars = []
    for year in range(first, last + 1):
        count = counts.get(year, 0)
        height = round(count / peak * CHART_BAR_HEIGHT, 1)
        bars.append(
            {
                "year": year,
                "count": count,
                "x": round((year - first) * slot + slot * 0.15, 1),
                "label_x": round((year - first) * slot + slot / 2, 1),
                "width": round(slot * 0.7, 1),
                "height": height,
                "y": round(CHART_BAR_HEIGHT - height, 1),
            }
        )
    return {"bars": bars, "max": peak, "first": first, "last": last}


# A listing links every author, topic and work it shows, a few hundred links on a profile page;
# reverse() for each cost more than a millisecond a page, so each URL pattern is reversed once
# with a stand-in argument (digits suit both the slug and the int converters) and filled in.
_STAND_IN = "4815162342"


@functools.cache
def _url_around(name: str) -> tuple[str, str]:
    before, _, after = reverse(name, args=[_STAND_IN]).rpartition(_STAND_IN)
    return before, after


def _url(name: str, value: Any) -> str:
    before, after = _url_around(name)
    return f"{before}{value}{after}"


@register.filter
def researcher_url(slug: str) -> str:
    """{{ author.slug|researcher_url }}: the profile URL (slugs are URL-safe by construction)."""
    return _url("researcher-profile", slug)


@register.filter
def topic_url(topic_id: int) -> str:
    return _url("publications:topic-detail", int(topic_id))


@register.filter
def work_url(work_id: int) -> str:
    return _url("publications:work-detail", int(work_id))


def institution_url(institution_id: int) -> str:
    return _url("institution-detail", int(institution_id))


def author_link(author: Mapping[str, Any], own: bool) -> Markup:
    """One author of a listed work's byline (the Jinja2 listings): the name the byline gives
    (raw_name, else the record's), linked to their profile when they have one, marked as the
    page's own author when `own`. A function rather than a macro: a profile of twenty works
    calls it a couple of hundred times, and a Jinja2 macro call cost ten times as much. Escaped
    with markupsafe, as the template's own output, so the markup is the macro's to the byte."""
    shown_name = escape(author.get("raw_name") or author.get("name") or "")
    slug = author.get("slug")
    if not slug:
        return shown_name
    mark = 'class="own-author" aria-current="page" ' if own else ""
    href = escape(researcher_url(slug))
    return Markup(f'<a {mark}href="{href}">{shown_name}</a>')  # noqa: S704 - escaped above


def author_links(authors: list[Mapping[str, Any]], own: Mapping[str, Any] | None) -> Markup:
    """A whole byline as author_link() gives each author, comma-separated, `own` (the page's
    own author's byline slot, or None) marked: the full byline a listed work unfolds."""
    own_position = own["position"] if own is not None else None
    return Markup(", ").join(
        author_link(author, own_position is not None and author["position"] == own_position)
        for author in authors
    )
