"""The Jinja2 template backend, reporting each render the way Django's own templates do under
test (django.test.signals.template_rendered), so `response.context` and `response.templates`
work for the Jinja2 pages as for the others. Used by bzpeer.settings.test only."""

from __future__ import annotations

from typing import Any

from django.template.backends import jinja2 as django_jinja2
from django.test.signals import template_rendered


class InstrumentedTemplate(django_jinja2.Template):
    def render(self, context: dict[str, Any] | None = None, request: Any = None) -> str:
        context = {} if context is None else context
        rendered = super().render(context, request)
        template_rendered.send(sender=self, template=self, context=context)
        return rendered


class Jinja2(django_jinja2.Jinja2):
    def get_template(self, template_name: str) -> InstrumentedTemplate:
        template = super().get_template(template_name)
        return InstrumentedTemplate(template.template, self)
