"""Ready-made record sets for common jobs. Each preset asks for what it needs (its form is in dns/forms.py) and
builds the exact records, which the customer sees before anything is added."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext_lazy

from dns import spf
from dns.forms import (
    APEX,
    DmarcForm,
    MailForm,
    RecordLookup,
    ServerForm,
    SpfForm,
    VerificationForm,
    clean_txt,
    normalize_host,
    same_host,
)
from dns.services import RecordData

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise

# Keyed, like mx_records, by the providers the mail and SPF forms offer (dns.forms.MAIL_PROVIDERS).
SPF_VALUES = {
    "google": "v=spf1 include:_spf.google.com ~all",
    "microsoft": "v=spf1 include:spf.protection.outlook.com -all",
    "zoho": "v=spf1 include:zohomail.com ~all",
}


def mx_records(provider: str, domain_name: str) -> list[RecordData]:
    if provider == "google":
        return [RecordData(type="MX", host="@", value="smtp.google.com", priority=1)]
    if provider == "microsoft":
        # Microsoft 365 names the mail host after the domain, with its dots turned into hyphens.
        target = f"{domain_name.lower().replace('.', '-')}.mail.protection.outlook.com"
        return [RecordData(type="MX", host="@", value=target, priority=0)]
    if provider == "zoho":
        return [
            RecordData(type="MX", host="@", value="mx.zoho.com", priority=10),
            RecordData(type="MX", host="@", value="mx2.zoho.com", priority=20),
            RecordData(type="MX", host="@", value="mx3.zoho.com", priority=50),
        ]
    raise ValueError(provider)


# What to do with records already in the zone that a preset's records would clash with.
REPLACE, KEEP, MERGE = "replace", "keep", "merge"


@dataclass(frozen=True)
class Plan:
    """Exactly what applying a preset does to the zone, shown before it is done.

    `conflicts` are the zone's records in the way; `choice` (one of `choices`) says what happens to them.
    """

    add: list[RecordData]
    present: list[RecordData] = field(default_factory=list)  # wanted and already in the zone: nothing to do
    change: list[tuple[RecordData, RecordData]] = field(default_factory=list)  # (as it is, as it will be)
    remove: list[RecordData] = field(default_factory=list)
    conflicts: list[RecordData] = field(default_factory=list)
    choices: tuple[tuple[str, StrOrPromise], ...] = ()
    choice: str = ""

    @property
    def fingerprint(self) -> str:
        """Names the conflicts the customer saw in the preview: applying refuses if the zone changed since."""
        seen = sorted(f"{r.type} {r.host} {r.value} {r.priority}" for r in self.conflicts)
        return hashlib.sha256("\n".join(seen).encode()).hexdigest()[:16]


Resolve = Callable[[list[RecordData], RecordLookup, str, str], Plan]


def _as_data(record: Any, domain_name: str) -> RecordData:
    return RecordData(
        type=record.type, host=normalize_host(record.host, domain_name), value=record.value, priority=record.priority
    )


def _zone(existing: RecordLookup, record_type: str, host: str, domain_name: str) -> list[RecordData]:
    return [_as_data(r, domain_name) for r in existing(record_type) if same_host(r, host, domain_name)]


def _already_there(wanted: list[RecordData], existing: RecordLookup, domain_name: str) -> list[RecordData]:
    """The wanted records the zone has already (same type, host and value): sending them again would fail."""
    found = []
    for record in wanted:
        values = {r.value.lower().rstrip(".") for r in _zone(existing, record.type, record.host, domain_name)}
        if record.value.lower().rstrip(".") in values:
            found.append(record)
    return found


def _choose(choice: str, choices: tuple[tuple[str, StrOrPromise], ...]) -> str:
    offered = [value for value, _ in choices]
    return choice if choice in offered else offered[0]


def _replace_or_keep(
    wanted: list[RecordData], existing: RecordLookup, domain_name: str, conflicts: list[RecordData], choice: str, *,
    choices: tuple[tuple[str, StrOrPromise], ...],
) -> Plan:  # fmt: skip
    present = _already_there(wanted, existing, domain_name)
    add = [r for r in wanted if r not in present]
    if not conflicts:
        return Plan(add=add, present=present)
    chosen = _choose(choice, choices)
    return Plan(
        add=add,
        present=present,
        remove=conflicts if chosen == REPLACE else [],
        conflicts=conflicts,
        choices=choices,
        choice=chosen,
    )


SERVER_CHOICES = (
    (REPLACE, gettext_lazy("Replace them, so the domain points only at your server")),
    (KEEP, gettext_lazy("Keep them beside it (visitors are sent to any of the addresses)")),
)
MAIL_CHOICES = (
    (REPLACE, gettext_lazy("Replace them, so mail goes only to the new provider")),
    (KEEP, gettext_lazy("Keep them beside it (mail is delivered to either provider)")),
)
SPF_CHOICES = (
    (MERGE, gettext_lazy("Merge: one SPF record that allows both")),
    (REPLACE, gettext_lazy("Replace: only the new provider may send as you")),
)
DMARC_CHOICES = ((REPLACE, gettext_lazy("Replace it: a name can have only one DMARC policy")),)


def _server_plan(wanted: list[RecordData], existing: RecordLookup, domain_name: str, choice: str) -> Plan:
    """Another apex address (A, or AAAA for IPv6 visitors) would send some visitors elsewhere."""
    address = wanted[0].value
    apex = _zone(existing, "A", APEX, domain_name) + _zone(existing, "AAAA", APEX, domain_name)
    conflicts = [r for r in apex if not (r.type == "A" and r.value == address)]
    return _replace_or_keep(wanted, existing, domain_name, conflicts, choice, choices=SERVER_CHOICES)


def _mail_plan(wanted: list[RecordData], existing: RecordLookup, domain_name: str, choice: str) -> Plan:
    """Another provider's MX beside the new one splits the domain's mail between two mailboxes."""
    targets = {r.value.lower() for r in wanted}
    conflicts = [r for r in _zone(existing, "MX", APEX, domain_name) if r.value.lower().rstrip(".") not in targets]
    return _replace_or_keep(wanted, existing, domain_name, conflicts, choice, choices=MAIL_CHOICES)


def _single_txt_plan(
    wanted: list[RecordData], existing: RecordLookup, domain_name: str, choice: str, *,
    kind: Callable[[str], bool], choices: tuple[tuple[str, StrOrPromise], ...],
) -> Plan:  # fmt: skip
    """SPF and DMARC: one record per name. The existing one is changed (merged or replaced), never doubled."""
    new = wanted[0]
    conflicts = [r for r in _zone(existing, "TXT", new.host, domain_name) if kind(r.value)]
    if not conflicts:
        return _replace_or_keep(wanted, existing, domain_name, [], choice, choices=choices)
    chosen = _choose(choice, choices)
    value = spf.merge(existing=[r.value for r in conflicts], new=new.value) if chosen == MERGE else new.value
    target = RecordData(type="TXT", host=new.host, value=value)
    first, *others = conflicts
    if first.value == value and not others:
        return Plan(add=[], present=[target], conflicts=conflicts, choices=choices, choice=chosen)
    return Plan(add=[], change=[(first, target)], remove=others, conflicts=conflicts, choices=choices, choice=chosen)


def _spf_plan(wanted: list[RecordData], existing: RecordLookup, domain_name: str, choice: str) -> Plan:
    return _single_txt_plan(wanted, existing, domain_name, choice, kind=spf.is_spf, choices=SPF_CHOICES)


def _is_dmarc(value: str) -> bool:
    return value.strip().lower().startswith("v=dmarc1")


def _dmarc_plan(wanted: list[RecordData], existing: RecordLookup, domain_name: str, choice: str) -> Plan:
    return _single_txt_plan(wanted, existing, domain_name, choice, kind=_is_dmarc, choices=DMARC_CHOICES)


def _plain_plan(wanted: list[RecordData], existing: RecordLookup, domain_name: str, choice: str) -> Plan:
    return _replace_or_keep(wanted, existing, domain_name, [], choice, choices=())


@dataclass(frozen=True)
class Preset:
    slug: str
    title: StrOrPromise
    summary: StrOrPromise
    form_class: type[forms.Form]
    build: Callable[[dict[str, Any], str], list[RecordData]]
    resolve: Resolve = _plain_plan

    def plan(self, *, data: dict[str, Any], domain_name: str, existing: RecordLookup, choice: str = "") -> Plan:
        """The records the answers ask for, set against the zone as it is now."""
        return self.resolve(self.build(data, domain_name), existing, domain_name, choice)


def _server(data: dict[str, Any], domain_name: str) -> list[RecordData]:
    records = [RecordData(type="A", host="@", value=data["ip"])]
    if data["www"] == "a":
        records.append(RecordData(type="A", host="www", value=data["ip"]))
    elif data["www"] == "cname":
        records.append(RecordData(type="CNAME", host="www", value=domain_name.lower()))
    return records


def _dmarc(data: dict[str, Any], domain_name: str) -> list[RecordData]:
    value = f"v=DMARC1; p={data['policy']}"
    if data.get("rua"):
        value += f"; rua=mailto:{data['rua']}"
    return [RecordData(type="TXT", host="_dmarc", value=value)]


def _verification(data: dict[str, Any], domain_name: str) -> list[RecordData]:
    return [RecordData(type="TXT", host=data.get("host") or "@", value=clean_txt(data["token"]))]


PRESETS: dict[str, Preset] = {
    preset.slug: preset
    for preset in (
        Preset(
            slug="server",
            title=gettext_lazy("Point the domain at a server"),
            summary=gettext_lazy("An A record for the domain itself, and www as an alias or with its own A record."),
            form_class=ServerForm,
            build=_server,
            resolve=_server_plan,
        ),
        Preset(
            slug="mail",
            title=gettext_lazy("Receive email"),
            summary=gettext_lazy("The MX records of your mail provider."),
            form_class=MailForm,
            build=lambda data, domain: mx_records(data["provider"], domain),
            resolve=_mail_plan,
        ),
        Preset(
            slug="spf",
            title=gettext_lazy("SPF: who may send email as you"),
            summary=gettext_lazy("A TXT record listing your mail provider as an allowed sender."),
            form_class=SpfForm,
            build=lambda data, domain: [RecordData(type="TXT", host="@", value=SPF_VALUES[data["provider"]])],
            resolve=_spf_plan,
        ),
        Preset(
            slug="dmarc",
            title=gettext_lazy("DMARC policy"),
            summary=gettext_lazy(
                "A TXT record on _dmarc telling receivers what to do with mail that fails the checks."
            ),
            form_class=DmarcForm,
            build=_dmarc,
            resolve=_dmarc_plan,
        ),
        Preset(
            slug="verification",
            title=gettext_lazy("Verify the domain for a service"),
            summary=gettext_lazy(
                "A TXT record with the text a service (Google, Microsoft, Stripe…) asks you to publish."
            ),
            form_class=VerificationForm,
            build=_verification,
        ),
    )
}
