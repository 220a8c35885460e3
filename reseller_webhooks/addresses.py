"""Where a delivery may go: a webhook is a request the store makes to an address staff typed, so an endpoint must
not reach what only the store can reach (its database, its cache, the cloud's metadata service at 169.254.169.254,
anything on a private network): server-side request forgery.

Each delivery resolves the endpoint's host itself and refuses it unless every address it resolves to is public
(`ipaddress.is_global`), and never follows a redirect (a public address could redirect to a private one). The
setting WEBHOOK_ALLOW_PRIVATE_ADDRESSES lifts both rules and allows plain http: on in development and tests (their
receivers listen on loopback), off in production, where an endpoint must be a public https address.

Left open: a host whose DNS answer changes between this check and the request's own lookup (DNS rebinding) could
still reach a private address once; the window is one lookup, and the answer is not shown to anyone.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings


class AddressRefused(Exception):
    """The endpoint's address is not one the store sends to; the message says why (staff read it)."""


def private_addresses_allowed() -> bool:
    return bool(settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES)


def url_check(url: str) -> None:
    """Refuse what can be told from the URL alone (the admin's form runs this): scheme, host, a literal address."""
    parts = urlsplit(url)
    allowed = ("https", "http") if private_addresses_allowed() else ("https",)
    if parts.scheme not in allowed:
        raise AddressRefused(f"the URL must start with {' or '.join(f'{scheme}://' for scheme in allowed)}")
    if not parts.hostname:
        raise AddressRefused("the URL has no host")
    if parts.username or parts.password:
        raise AddressRefused("the URL may not carry a user name or password")
    if private_addresses_allowed():
        return
    if parts.hostname == "localhost" or parts.hostname.endswith((".localhost", ".local", ".internal")):
        raise AddressRefused(f"{parts.hostname} is not a public host")
    try:
        _public_check(ipaddress.ip_address(parts.hostname))
    except ValueError:
        pass  # a name: resolved when sending


def address_check(url: str) -> None:
    """Refuse the URL unless every address its host resolves to now is public (or the setting allows any)."""
    url_check(url)
    if private_addresses_allowed():
        return
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        answers = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as err:
        raise AddressRefused(f"{parts.hostname} does not resolve ({err})") from err
    for *_, sockaddr in answers:
        _public_check(ipaddress.ip_address(sockaddr[0]))


def _public_check(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    if not address.is_global or address.is_multicast:
        raise AddressRefused(f"{address} is not a public address (setting WEBHOOK_ALLOW_PRIVATE_ADDRESSES)")
