"""What customers reach for that the provider cannot do yet, each named once.

A feature behind one of the provider's "coming soon" capabilities (storefront/site/capabilities.py) arrives when that
capability is switched on (RESELLER_CAPABILITIES); one the provider has no endpoint for at all (nameservers,
transfer-in, DNSSEC, forwarding: reference/provider-notes.md) names no capability, so it is counted and its
subscribers kept until a release of the store maps it to one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

from storefront.site.capabilities import PRIVACY, capability_enabled

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class Wanted:
    key: str
    name: StrOrPromise
    why: StrOrPromise
    capability: str | None = None

    @property
    def available(self) -> bool:
        return self.capability is not None and capability_enabled(self.capability)


FEATURES: dict[str, Wanted] = {
    wanted.key: wanted
    for wanted in (
        Wanted(
            "nameservers",
            _("Your own nameservers"),
            _("Our provider offers no way to move a domain to other nameservers yet."),
        ),
        Wanted(
            "transfer_in",
            _("Transferring a domain in"),
            _("Our provider cannot take over a domain from another registrar yet."),
        ),
        Wanted("dnssec", _("DNSSEC"), _("Our provider cannot sign a domain's DNS records (DNSSEC) yet.")),
        Wanted(
            "email_forwarding",
            _("Email forwarding"),
            _("Our provider cannot forward email sent to your domain to another address yet."),
        ),
        Wanted(
            "url_forwarding",
            _("URL forwarding"),
            _("Our provider cannot redirect your domain's web address to another site yet."),
        ),
        Wanted(
            "privacy",
            _("WHOIS privacy"),
            _("WHOIS privacy cannot be added through our provider yet."),
            capability=PRIVACY,
        ),
    )
}
