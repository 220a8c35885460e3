"""Countries, their states and dialling prefixes, for signup (and the sandbox's signup rules).

By default the list is built from maintained libraries: pycountry for countries and their top-level
subdivisions, phonenumbers for dialling prefixes. With `COUNTRIES_FILE` set, the provider's own
countries-and-states file (a JSON list of {name, alpha-2, dial-code, states}) is used instead, exactly as given.
Every state list ends with the literal `Other`, which is also the whole list for a country without states.
"""

from __future__ import annotations

import gettext
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import phonenumbers
import pycountry
from django.conf import settings
from django.core.signals import setting_changed
from django.utils import translation

OTHER = "Other"


@dataclass(frozen=True)
class Country:
    name: str
    alpha2: str
    dial_code: str
    states: tuple[str, ...]

    @property
    def display_name(self) -> str:
        """The name shown to the customer, in the active language (pycountry's ISO 3166 translations). `name`
        stays what is sent to the provider."""
        language = translation.get_language() or settings.LANGUAGE_CODE
        official = pycountry.countries.get(alpha_2=self.alpha2)
        if language.startswith("en") or official is None:
            return self.name
        return _iso3166(translation.to_locale(language)).gettext(official.name)


@cache
def _iso3166(locale: str) -> gettext.NullTranslations:
    return gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[locale], fallback=True)


def to_ascii(text: str) -> str:
    """The English/ASCII spelling the provider wants: accents dropped (Württemberg -> Wurttemberg)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if ord(ch) < 128).strip()


@cache
def countries() -> tuple[Country, ...]:
    path = getattr(settings, "COUNTRIES_FILE", "")
    loaded = _from_provider_file(Path(path)) if path else _from_libraries()
    return tuple(sorted(loaded, key=lambda country: country.name))


@cache
def _by_code() -> dict[str, Country]:
    return {country.alpha2: country for country in countries()}


def country(alpha2: str) -> Country | None:
    return _by_code().get(alpha2)


def states_for(alpha2: str) -> tuple[str, ...]:
    found = country(alpha2)
    return found.states if found else (OTHER,)


def dial_code_for(alpha2: str) -> str:
    found = country(alpha2)
    return found.dial_code if found else ""


def _from_libraries() -> list[Country]:
    top_level: dict[str, list[str]] = {}
    for subdivision in pycountry.subdivisions:
        if getattr(subdivision, "parent_code", None):
            continue  # only the first level (states, provinces, regions), as the provider lists them
        # pycountry adds local-language aliases in brackets ("Wales [Cymru GB-CYM]"); the provider wants the name.
        name = re.sub(r"\s*\[.*?\]", "", subdivision.name)
        top_level.setdefault(subdivision.country_code, []).append(to_ascii(name))
    result = []
    for entry in pycountry.countries:
        code = phonenumbers.country_code_for_region(entry.alpha_2)
        states = sorted(set(top_level.get(entry.alpha_2, [])) - {OTHER})
        result.append(
            Country(
                name=getattr(entry, "common_name", None) or entry.name,
                alpha2=entry.alpha_2,
                dial_code=str(code) if code else "",
                states=(*states, OTHER),
            )
        )
    return result


def _from_provider_file(path: Path) -> list[Country]:
    rows = json.loads(path.read_text(encoding="utf-8"))
    result = []
    for row in rows:
        states = [str(state) for state in row.get("states") or []]
        if not states or states[-1] != OTHER:
            states.append(OTHER)
        result.append(
            Country(
                name=str(row["name"]),
                alpha2=str(row["alpha-2"]).upper(),
                dial_code=str(row.get("dial-code") or "").lstrip("+"),
                states=tuple(states),
            )
        )
    return result


def _forget(*, setting: str, **_: object) -> None:
    if setting == "COUNTRIES_FILE":
        countries.cache_clear()
        _by_code.cache_clear()


setting_changed.connect(_forget)
