"""Ready-made record sets for common jobs. Each preset asks for what it needs and builds the exact records,
which the customer sees before anything is added."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms

from dns.forms import MAX_TXT_LENGTH, clean_txt
from dns.services import RecordData

MAIL_PROVIDERS = [
    ("google", "Google Workspace"),
    ("microsoft", "Microsoft 365"),
    ("zoho", "Zoho Mail"),
]

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


class PresetForm(forms.Form):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class ServerForm(PresetForm):
    ip = forms.GenericIPAddressField(
        label="Your server's IPv4 address",
        protocol="IPv4",
        error_messages={
            "required": "Enter the server's IPv4 address.",
            "invalid": "Enter an IPv4 address such as 203.0.113.10.",
        },
    )
    www = forms.ChoiceField(
        label="www",
        choices=[
            ("cname", "www is an alias (CNAME) of the domain"),
            ("a", "www gets its own A record with the same address"),
            ("none", "Leave www alone"),
        ],
        initial="cname",
    )


class MailForm(PresetForm):
    provider = forms.ChoiceField(label="Mail provider", choices=MAIL_PROVIDERS)


class SpfForm(PresetForm):
    provider = forms.ChoiceField(label="Who sends mail for your domain", choices=MAIL_PROVIDERS)


class DmarcForm(PresetForm):
    policy = forms.ChoiceField(
        label="Policy for mail that fails the checks",
        choices=[
            ("none", "none: only report (a good start)"),
            ("quarantine", "quarantine: send to spam"),
            ("reject", "reject: refuse it"),
        ],
        initial="none",
    )
    rua = forms.EmailField(
        label="Send reports to (email)",
        required=False,
        error_messages={"invalid": "Enter an email address such as dmarc@yourdomain.com, or leave it empty."},
    )


class VerificationForm(PresetForm):
    token = forms.CharField(
        label="Verification text",
        max_length=MAX_TXT_LENGTH * 2,
        help_text="Paste the whole text the service gave you, e.g. google-site-verification=…",
        error_messages={"required": "Paste the verification text the service gave you."},
    )
    host = forms.CharField(
        label="Host",
        required=False,
        help_text="Usually @ (the domain itself); some services ask for a name such as _acme or _github-pages.",
    )


@dataclass(frozen=True)
class Preset:
    slug: str
    title: str
    summary: str
    form_class: type[forms.Form]
    build: Callable[[dict[str, Any], str], list[RecordData]]


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
            title="Point the domain at a server",
            summary="An A record for the domain itself, and www as an alias or with its own A record.",
            form_class=ServerForm,
            build=_server,
        ),
        Preset(
            slug="mail",
            title="Receive email",
            summary="The MX records of your mail provider.",
            form_class=MailForm,
            build=lambda data, domain: mx_records(data["provider"], domain),
        ),
        Preset(
            slug="spf",
            title="SPF: who may send email as you",
            summary="A TXT record listing your mail provider as an allowed sender.",
            form_class=SpfForm,
            build=lambda data, domain: [RecordData(type="TXT", host="@", value=SPF_VALUES[data["provider"]])],
        ),
        Preset(
            slug="dmarc",
            title="DMARC policy",
            summary="A TXT record on _dmarc telling receivers what to do with mail that fails the checks.",
            form_class=DmarcForm,
            build=_dmarc,
        ),
        Preset(
            slug="verification",
            title="Verify the domain for a service",
            summary="A TXT record with the text a service (Google, Microsoft, Stripe…) asks you to publish.",
            form_class=VerificationForm,
            build=_verification,
        ),
    )
}
