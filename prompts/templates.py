"""Load and fill the prompt templates in ``templates/``.

Prompts are text files so they can be read, diffed and tuned without
touching code. Filling uses ``str.format`` with named fields; rule text and
questions are inserted as values, never as format strings, so a rulebook
or a question containing braces cannot break a template.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def template(name: str) -> str:
    return (
        resources.files("ruleslawyer.prompts")
        .joinpath("templates", f"{name}.txt")
        .read_text(encoding="utf-8")
    )


def render(name: str, **fields: str) -> str:
    return template(name).format(**fields)
