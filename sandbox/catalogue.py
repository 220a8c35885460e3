"""A partner's catalogue seen by one request: its TLDs and prices, and which names are taken or premium.

The rules are deterministic so that tests and demos can rely on them (see sandbox/README.md):
- taken: registered in the sandbox (same environment, by any partner), listed as taken in the partner's
  catalogue, or a label starting with `taken`;
- premium (shown with a price, never registrable): listed as premium, or a label starting with `premium`;
- everything else is available.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sandbox.models import CatalogueTld, DomainOrder, Partner, ReservedName

LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
DEFAULT_PREMIUM_PRICE = Decimal("2499.00")
MAX_TERM = 10


@dataclass(frozen=True)
class Lookup:
    sld: str
    tld: CatalogueTld
    taken: bool
    premium: bool
    premium_price: Decimal | None

    @property
    def domain_name(self) -> str:
        return f"{self.sld}.{self.tld.tld}"

    @property
    def available(self) -> bool:
        return not self.taken and not self.premium


def money(value: Decimal) -> str:
    return f"${value:,.2f}"


def add_years(moment: dt.datetime, years: int) -> dt.datetime:
    year = moment.year + years
    day = min(moment.day, calendar.monthrange(year, moment.month)[1])  # 29 February -> 28
    return moment.replace(year=year, day=day)


def short_date(moment: dt.date) -> str:
    return f"{moment:%b} {moment.day}, {moment.year}"


def privacy_price(partner: Partner) -> Decimal:
    """The partner's one annual price for WHOIS privacy, as `GET /api/v1/pricing` quotes it and a purchase
    charges it: the price list has a single figure, so the highest of the catalogue's per-TLD prices."""
    prices = [entry.privacy_price for entry in partner.catalogue.all()]
    return max(prices, default=Decimal("0.00"))


class Catalogue:
    def __init__(self, partner: Partner, environment: str) -> None:
        self.partner = partner
        self.environment = environment
        self.tlds: list[CatalogueTld] = list(partner.catalogue.order_by("position", "tld"))
        self._by_name = {entry.tld: entry for entry in self.tlds}
        self._reserved = {row.domain_name: row for row in ReservedName.objects.filter(partner=partner)}

    @property
    def first(self) -> CatalogueTld | None:
        return self.tlds[0] if self.tlds else None

    def tld(self, name: str) -> CatalogueTld | None:
        return self._by_name.get(name.strip().lower().lstrip("."))

    def pick(self, requested: Iterable[str]) -> list[CatalogueTld]:
        """The requested TLDs the partner sells, in the order asked; none left: the first allowed one."""
        picked: list[CatalogueTld] = []
        for name in requested:
            entry = self.tld(name)
            if entry is not None and entry not in picked:
                picked.append(entry)
        if not picked and self.first is not None:
            picked.append(self.first)
        return picked

    def check(self, pairs: Sequence[tuple[str, CatalogueTld]]) -> list[Lookup]:
        names = [f"{sld}.{entry.tld}" for sld, entry in pairs]
        registered = set(
            DomainOrder.objects.filter(
                environment=self.environment, domain_name__in=names, status__in=DomainOrder.LISTED
            ).values_list("domain_name", flat=True)
        )
        lookups = []
        for (sld, entry), name in zip(pairs, names, strict=True):
            reserved = self._reserved.get(name)
            taken = name in registered or sld.startswith("taken") or (reserved is not None and reserved.kind == "taken")
            premium = not taken and (sld.startswith("premium") or (reserved is not None and reserved.kind == "premium"))
            price = (reserved.premium_price if reserved else None) or DEFAULT_PREMIUM_PRICE
            lookups.append(Lookup(sld=sld, tld=entry, taken=taken, premium=premium, premium_price=price))
        return lookups

    def check_one(self, sld: str, entry: CatalogueTld) -> Lookup:
        return self.check([(sld, entry)])[0]


def domain_result(lookup: Lookup) -> dict:
    """A Domain result of the main interface (availability, suggestions)."""
    return {
        "product_category": "domain_registration",
        "domain_name": lookup.domain_name,
        "sld": lookup.sld,
        "tld": lookup.tld.tld,
        "available": lookup.available,
        "premium": lookup.premium,
    }


def pricing(lookup: Lookup) -> dict | None:
    """MetaSearch's pricing object: null when taken; premium names carry a summary starting with `Premium`."""
    if lookup.taken:
        return None
    entry = lookup.tld
    if lookup.premium:
        price = lookup.premium_price or DEFAULT_PREMIUM_PRICE
        return {
            "currency": "USD",
            "register": float(price),
            "renew": float(entry.renew_price),
            "period": "year",
            "is_free_first_year": False,
            "summary": f"Premium: {money(price)} first year, then {money(entry.renew_price)}/yr",
        }
    first = entry.first_year_price
    if entry.free_first_year:
        summary = f"Free for the first year, then {money(entry.renew_price)}/yr"
    elif first == entry.renew_price:
        summary = f"{money(first)}/yr"
    else:
        summary = f"{money(first)} first year, then {money(entry.renew_price)}/yr"
    if entry.min_term > 1:
        summary += f" ({entry.min_term}-year minimum)"
    return {
        "currency": "USD",
        "register": float(first),
        "renew": float(entry.renew_price),
        "period": "year",
        "is_free_first_year": entry.free_first_year,
        "summary": summary,
    }
