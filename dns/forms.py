"""The DNS editor's forms: every rule is checked here, before anything is sent to the provider. The record forms
first, then the questions each preset (dns/presets.py) asks."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from dns import spf
from storefront.gateway import EDITABLE_RECORD_TYPES, DnsRecord, GatewayError, RecordType

READ_ONLY_RECORD_TYPES: tuple[RecordType, ...] = ("NS", "SRV", "SOA")
ALL_RECORD_TYPES = (*EDITABLE_RECORD_TYPES, *READ_ONLY_RECORD_TYPES)
TYPE_CHOICES = [(t, t) for t in EDITABLE_RECORD_TYPES]

APEX = "@"
MIN_TTL = 300
MAX_TTL = 86400
MAX_PRIORITY = 65535
# A DNS text string holds at most 255 characters (RFC 1035 <character-string>); a longer TXT value has to be sent
# as several strings. The provider's contract takes a TXT value as one plain string (`value`, "text content") and
# shows no way to send several, and a longer one would be cut or refused at its end, so it is refused here.
TXT_STRING_MAX = 255
# What the value field takes at all (quotes included), so a long paste still gets the sentence above.
MAX_TXT_LENGTH = 2048
MAX_NAME_LENGTH = 253

# Types whose host may contain underscores: `_dmarc`, `selector._domainkey`, service aliases.
UNDERSCORE_HOST_TYPES = ("TXT", "CNAME")

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_LABEL_UNDERSCORE = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
# A TXT value pasted as one or more quoted strings: "v=DKIM1; k=rsa; " "p=MIIB..."
_QUOTED_CHUNKS = re.compile(r'^\s*(?:"(?:[^"\\]|\\.)*"\s*)+$')
_CHUNK = re.compile(r'"((?:[^"\\]|\\.)*)"')

# Returns the zone's records of one type; the form asks only for the types a rule needs.
RecordLookup = Callable[[str], list[DnsRecord]]


def normalize_host(raw: str, domain_name: str) -> str:
    """The host relative to the zone: `@` for the apex; a pasted full name loses the domain."""
    host = (raw or "").strip().lower().rstrip(".")
    domain = domain_name.lower().rstrip(".")
    if host in ("", APEX, domain):
        return APEX
    if host.endswith("." + domain):
        host = host[: -len(domain) - 1]
    return host


def normalize_target(raw: str) -> str:
    return (raw or "").strip().lower().removesuffix(".")


def host_is_valid(host: str, *, allow_underscore: bool) -> bool:
    if host == APEX:
        return True
    labels = host.split(".")
    pattern = _LABEL_UNDERSCORE if allow_underscore else _LABEL
    # A wildcard is allowed as the whole first label only (`*` or `*.shop`).
    if labels[0] == "*":
        labels = labels[1:]
        if not labels:
            return True
    return all(pattern.match(label) for label in labels)


def target_is_valid(target: str, *, allow_underscore: bool) -> bool:
    if len(target) > MAX_NAME_LENGTH or "." not in target:
        return False
    labels = target.split(".")
    pattern = _LABEL_UNDERSCORE if allow_underscore else _LABEL
    # The last label is a top-level domain: never all digits (that would be an IP address).
    return all(pattern.match(label) for label in labels) and not labels[-1].isdigit()


def looks_like_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value.strip().strip("[]"))
    except ValueError:
        return False
    return True


def clean_txt(raw: str) -> str:
    """The text the customer means: surrounding quotes pasted from a DNS console are removed, and a value
    pasted as several quoted strings (how long DKIM keys are often shown) is joined into one."""
    value = (raw or "").strip()
    if _QUOTED_CHUNKS.match(value):
        return "".join(chunk.replace('\\"', '"') for chunk in _CHUNK.findall(value))
    return value


def same_host(record: DnsRecord, host: str, domain_name: str) -> bool:
    return normalize_host(record.host, domain_name) == host


class RecordForm(forms.Form):
    """Add a record. `existing` lets the form check the CNAME rules against the zone as it is."""

    type = forms.ChoiceField(
        label=_("Type"), choices=TYPE_CHOICES, error_messages={"invalid_choice": _("Choose A, AAAA, CNAME, MX or TXT.")}
    )
    host = forms.CharField(
        label=_("Host"),
        required=False,
        max_length=MAX_NAME_LENGTH,
        help_text=_("@ (or empty) for the domain itself, or a name such as www."),
        error_messages={"max_length": _("A host name is at most 253 characters.")},
    )
    value = forms.CharField(
        label=_("Value"),
        # TXT values may be pasted with quotes around each chunk; the length rule applies after they go.
        max_length=MAX_TXT_LENGTH * 2,
        strip=False,
        error_messages={"required": _("Enter the record's value."), "max_length": _("That value is far too long.")},
    )
    ttl = forms.IntegerField(
        label=_("TTL (seconds)"),
        required=False,
        min_value=MIN_TTL,
        max_value=MAX_TTL,
        help_text=_("Leave empty for the zone default."),
        error_messages={
            "invalid": _("Enter the TTL as a whole number of seconds, or leave it empty."),
            "min_value": _("The TTL must be at least 300 seconds (5 minutes), or left empty for the zone default."),
            "max_value": _("The TTL can be at most 86400 seconds (1 day)."),
        },
    )
    priority = forms.IntegerField(
        label=_("Priority (MX only)"),
        required=False,
        min_value=0,
        max_value=MAX_PRIORITY,
        help_text=_("Lower numbers are tried first."),
        error_messages={
            "invalid": _("Enter the priority as a whole number."),
            "min_value": _("The priority must be between 0 and 65535."),
            "max_value": _("The priority must be between 0 and 65535."),
        },
    )

    def __init__(self, *args, domain_name: str, existing: RecordLookup | None = None, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.domain_name = domain_name
        self.existing = existing

    def clean(self) -> dict:
        super().clean()
        cleaned = self.cleaned_data
        record_type = cleaned.get("type")
        if not record_type:
            return cleaned
        if "host" in cleaned:
            cleaned["host"] = self._clean_host(record_type, cleaned["host"])
        if "value" in cleaned:
            cleaned["value"] = self._clean_value(record_type, cleaned["value"])
        if record_type == "MX":
            if cleaned.get("priority") is None and "priority" not in self.errors:
                self.add_error(
                    "priority",
                    ValidationError(_("An MX record needs a priority, for example 10."), code="priority_required"),
                )
        else:
            cleaned["priority"] = None
        if not self.errors:
            self._check_cname_rules(record_type, cleaned["host"])
        if not self.errors and record_type == "TXT" and spf.is_spf(cleaned["value"]):
            self._check_single_spf(cleaned["host"], cleaned["value"])
        return cleaned

    def _clean_host(self, record_type: str, raw: str) -> str:
        host = normalize_host(raw, self.domain_name)
        if not host_is_valid(host, allow_underscore=record_type in UNDERSCORE_HOST_TYPES):
            if "_" in host and record_type not in UNDERSCORE_HOST_TYPES:
                message = gettext("Underscores are only allowed in TXT and CNAME hosts, not in %(type)s records.") % {
                    "type": record_type
                }
            else:
                message = gettext(
                    "Enter a host such as www or mail: letters, digits and hyphens, each part 1 to 63 "
                    "characters, not starting or ending with a hyphen. Use @ for the domain itself."
                )
            self.add_error("host", ValidationError(message, code="invalid_host"))
        elif host != APEX and len(host) + 1 + len(self.domain_name) > MAX_NAME_LENGTH:
            self.add_error("host", ValidationError(_("That host name is too long for this domain."), code="host_long"))
        elif record_type == "CNAME" and host == APEX:
            self.add_error(
                "host",
                ValidationError(
                    _(
                        "A CNAME can't be at the domain itself (@). Use an A record for the domain, "
                        "or a CNAME on a name such as www."
                    ),
                    code="cname_apex",
                ),
            )
        return host

    def _clean_value(self, record_type: str, raw: str) -> str:
        value = raw.strip()
        if record_type == "A":
            try:
                return str(ipaddress.IPv4Address(value))
            except ValueError:
                self._value_error(gettext("Enter an IPv4 address such as 203.0.113.10."), "invalid_ipv4")
        elif record_type == "AAAA":
            try:
                return ipaddress.IPv6Address(value).compressed
            except ValueError:
                self._value_error(gettext("Enter an IPv6 address such as 2001:db8::10."), "invalid_ipv6")
        elif record_type in ("CNAME", "MX"):
            target = normalize_target(value)
            if looks_like_ip(target):
                self._value_error(
                    gettext(
                        "A %(type)s record points to a hostname, not an IP address. Use an A record for an address."
                    )
                    % {"type": record_type},
                    "target_is_ip",
                )
            elif not target_is_valid(target, allow_underscore=record_type == "CNAME"):
                if record_type == "MX":
                    message = gettext("Enter the mail server's full hostname, such as mail.example.net.")
                else:
                    message = gettext("Enter the target's full hostname, such as mail.example.net.")
                self._value_error(message, "invalid_target")
            return target
        elif record_type == "TXT":
            text = clean_txt(raw)
            if not text:
                self._value_error(gettext("Enter the text of the record."), "required")
            elif len(text) > TXT_STRING_MAX:
                self._value_error(
                    gettext(
                        "A DNS text string holds at most 255 characters, and our provider takes a TXT record as one "
                        "string (it has no way to send a longer value as several), so this one (%(length)d "
                        "characters) can't be added. For a DKIM key, ask your email service for a 1024-bit key, "
                        "which fits."
                    )
                    % {"length": len(text)},
                    "txt_too_long",
                )
            elif not all(" " <= ch <= "~" for ch in text):
                self._value_error(
                    gettext("A TXT value can hold plain ASCII text only (no line breaks or accented letters)."),
                    "txt_not_ascii",
                )
            return text
        return value

    def _value_error(self, message: str, code: str) -> None:
        self.add_error("value", ValidationError(message, code=code))

    def _check_cname_rules(self, record_type: str, host: str) -> None:
        """A name that is a CNAME has no other records. Only the listings this rule needs are read."""
        if self.existing is None:
            return
        try:
            if record_type == "CNAME":
                for other_type in ("CNAME", "A", "AAAA", "MX", "TXT"):
                    if any(same_host(r, host, self.domain_name) for r in self.existing(other_type)):
                        self.add_error(
                            "host",
                            ValidationError(
                                _cname_conflict(host, other_type),
                                code="cname_conflict",
                            ),
                        )
                        return
            else:
                alias = next((r for r in self.existing("CNAME") if same_host(r, host, self.domain_name)), None)
                if alias is not None:
                    self.add_error(
                        "host",
                        ValidationError(
                            gettext(
                                "%(host)s is a CNAME (an alias of %(alias)s), so it can't have other records. "
                                "Remove the CNAME first, or use another host."
                            )
                            % {"host": host, "alias": alias.value},
                            code="host_is_cname",
                        ),
                    )
        except GatewayError as err:
            self.add_error(
                None,
                ValidationError(_lookup_failed(err), code="lookup_failed"),
            )

    def _check_single_spf(self, host: str, value: str) -> None:
        """A name has at most one SPF record: a second one makes SPF fail for every message."""
        if self.existing is None:
            return
        try:
            current = [r.value for r in self.existing("TXT") if same_host(r, host, self.domain_name)]
        except GatewayError as err:
            self.add_error(
                None,
                ValidationError(_lookup_failed(err), code="lookup_failed"),
            )
            return
        current = [text for text in current if spf.is_spf(text)]
        if current:
            self.add_error(
                "value",
                ValidationError(
                    _(
                        "%(host)s already has an SPF record (%(current)s). A name can have only one: with two, "
                        "receivers treat SPF as broken and every message fails the check. Change the existing record "
                        "instead, so that it lists both, for example: %(merged)s"
                    ),
                    code="spf_exists",
                    params={"host": host, "current": current[0], "merged": spf.merge(existing=current, new=value)},
                ),
            )


def _cname_conflict(host: str, other_type: str) -> str:
    # English needs "an" before A/AAAA/MX and "a" before CNAME/TXT: two sentences, so each language says it its way.
    if other_type[0] in "AM":
        message = gettext(
            "%(host)s already has an %(type)s record, and a CNAME can't sit beside other records. "
            "Remove that record first, or use another host."
        )
    else:
        message = gettext(
            "%(host)s already has a %(type)s record, and a CNAME can't sit beside other records. "
            "Remove that record first, or use another host."
        )
    return message % {"host": host, "type": other_type}


def _lookup_failed(err: GatewayError) -> str:
    return gettext("We couldn't check this name's existing records: %(reason)s") % {"reason": err.message}


class ChangeRecordForm(RecordForm):
    """Change one record's value, TTL or priority. Its type and host stay; `current_value` says which record."""

    current_value = forms.CharField(
        label=_("Current value"),
        strip=False,
        error_messages={"required": _("Which record? The current value is missing.")},
    )

    def __init__(self, *args, domain_name: str, **kwargs) -> None:
        # Type and host do not change, so the CNAME rules hold as they did: no lookup needed.
        super().__init__(*args, domain_name=domain_name, existing=None, **kwargs)


class DeleteRecordForm(forms.Form):
    """Names one record exactly as the listing shows it."""

    type = forms.ChoiceField(
        choices=TYPE_CHOICES, error_messages={"invalid_choice": _("Only A, AAAA, CNAME, MX and TXT records can go.")}
    )
    host = forms.CharField(required=False, max_length=MAX_NAME_LENGTH)
    value = forms.CharField(strip=False, error_messages={"required": _("Which record? The value is missing.")})

    def __init__(self, *args, domain_name: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.domain_name = domain_name

    def clean_host(self) -> str:
        return normalize_host(self.cleaned_data["host"], self.domain_name)


# --- Preset forms ---------------------------------------------------------------------------------------------
# The questions each ready-made record set asks; dns/presets.py turns the answers into records.

# dns/presets.py keys each provider's MX and SPF records by these values.
MAIL_PROVIDERS = [
    ("google", "Google Workspace"),
    ("microsoft", "Microsoft 365"),
    ("zoho", "Zoho Mail"),
]


class PresetForm(forms.Form):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class ServerForm(PresetForm):
    ip = forms.GenericIPAddressField(
        label=_("Your server's IPv4 address"),
        protocol="IPv4",
        error_messages={
            "required": _("Enter the server's IPv4 address."),
            "invalid": _("Enter an IPv4 address such as 203.0.113.10."),
        },
    )
    www = forms.ChoiceField(
        label="www",
        choices=[
            ("cname", _("www is an alias (CNAME) of the domain")),
            ("a", _("www gets its own A record with the same address")),
            ("none", _("Leave www alone")),
        ],
        initial="cname",
    )


class MailForm(PresetForm):
    provider = forms.ChoiceField(label=_("Mail provider"), choices=MAIL_PROVIDERS)


class SpfForm(PresetForm):
    provider = forms.ChoiceField(label=_("Who sends mail for your domain"), choices=MAIL_PROVIDERS)


class DmarcForm(PresetForm):
    policy = forms.ChoiceField(
        label=_("Policy for mail that fails the checks"),
        choices=[
            ("none", _("none: only report (a good start)")),
            ("quarantine", _("quarantine: send to spam")),
            ("reject", _("reject: refuse it")),
        ],
        initial="none",
    )
    rua = forms.EmailField(
        label=_("Send reports to (email)"),
        required=False,
        error_messages={"invalid": _("Enter an email address such as dmarc@yourdomain.com, or leave it empty.")},
    )


class VerificationForm(PresetForm):
    token = forms.CharField(
        label=_("Verification text"),
        max_length=MAX_TXT_LENGTH * 2,
        help_text=_("Paste the whole text the service gave you, e.g. google-site-verification=…"),
        error_messages={"required": _("Paste the verification text the service gave you.")},
    )
    host = forms.CharField(
        label=_("Host"),
        required=False,
        help_text=_("Usually @ (the domain itself); some services ask for a name such as _acme or _github-pages."),
    )
