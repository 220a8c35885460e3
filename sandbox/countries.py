"""The countries and states a signup may name, as the provider checks them.

With `SANDBOX_COUNTRIES_FILE` set, the provider's own published file (a JSON list of {name, alpha-2,
dial-code, states}) is used exactly as given; otherwise a list built from pycountry's countries and their
top-level subdivisions. Every state list ends with the literal `Other`, the whole list of a country without states.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from pathlib import Path

import pycountry
from django.conf import settings
from django.core.signals import setting_changed

OTHER = "Other"


def _to_ascii(text: str) -> str:
    """The English spelling pycountry's names get here (Württemberg -> Wurttemberg), as the provider lists them."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if ord(ch) < 128).strip()


@cache
def _states_by_country() -> dict[str, tuple[str, ...]]:
    path = settings.SANDBOX_COUNTRIES_FILE
    return _from_file(Path(path)) if path else _from_pycountry()


def known(alpha2: str) -> bool:
    return alpha2 in _states_by_country()


def states_for(alpha2: str) -> tuple[str, ...]:
    return _states_by_country().get(alpha2, ())


def _from_pycountry() -> dict[str, tuple[str, ...]]:
    top_level: dict[str, set[str]] = {}
    for subdivision in pycountry.subdivisions:
        if getattr(subdivision, "parent_code", None):
            continue  # the first level only (states, provinces, regions)
        # pycountry adds local-language aliases in brackets ("Wales [Cymru GB-CYM]"); the name is before them.
        name = re.sub(r"\s*\[.*?\]", "", subdivision.name)
        top_level.setdefault(subdivision.country_code, set()).add(_to_ascii(name))
    return {
        entry.alpha_2: (*sorted(top_level.get(entry.alpha_2, set()) - {OTHER}), OTHER) for entry in pycountry.countries
    }


def _from_file(path: Path) -> dict[str, tuple[str, ...]]:
    result = {}
    for row in json.loads(path.read_text(encoding="utf-8")):
        states = [str(state) for state in row.get("states") or []]
        if not states or states[-1] != OTHER:
            states.append(OTHER)
        result[str(row["alpha-2"]).upper()] = tuple(states)
    return result


def _forget(*, setting: str, **_: object) -> None:
    if setting == "SANDBOX_COUNTRIES_FILE":
        _states_by_country.cache_clear()


setting_changed.connect(_forget)
