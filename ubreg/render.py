"""Jinja2 rendering with autoescaping on for every template, whatever its name."""
from __future__ import annotations

from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined

__all__ = ["environment", "render_template"]


@lru_cache(maxsize=1)
def environment() -> Environment:
    # autoescape=True (not select_autoescape): user strings are escaped in
    # every template, including ones whose extension is not .html
    return Environment(loader=PackageLoader("ubreg", "templates"), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render_template(name: str, **context) -> str:
    return environment().get_template(name).render(**context)
