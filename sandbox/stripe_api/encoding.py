"""Stripe's request encoding: form fields with bracketed paths (`line_items[0][price_data][currency]=usd`)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

_PART = re.compile(r"\[([^\]]*)\]")


class MalformedParams(ValueError):
    pass


def _listify(node: Any) -> Any:
    # An object whose keys are all indices ("0", "1", ...) or empty ("expand[]") was a list.
    if isinstance(node, dict):
        node = {key: _listify(value) for key, value in node.items()}
        if node and all(key.isdigit() for key in node):
            return [node[key] for key in sorted(node, key=int)]
    return node


def decode(body: str) -> dict[str, Any]:
    """The nested parameters of a form-encoded body or query string."""
    result: dict[str, Any] = {}
    for field, value in parse_qsl(body, keep_blank_values=True):
        head, _, rest = field.partition("[")
        path = [head, *_PART.findall("[" + rest)] if rest else [head]
        node = result
        for index, part in enumerate(path):
            if part == "":  # `expand[]=a&expand[]=b`: the next free index
                part = str(len(node))
            last = index == len(path) - 1
            if last:
                node[part] = value
            else:
                child = node.setdefault(part, {})
                if not isinstance(child, dict):
                    raise MalformedParams(f"{field} mixes a value and an object")
                node = child
    return _listify(result)
