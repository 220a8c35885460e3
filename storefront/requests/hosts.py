"""Which host names and addresses are this machine's own (loopback): read by the settings (a public address must
not be one) and by the development mailbox (it answers only to this machine). No Django imports: settings use it."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback_host(host: str) -> bool:
    """`localhost` (and its subdomains), 127.0.0.0/8, ::1, and the unspecified addresses (0.0.0.0, ::), which
    no customer could reach either; brackets and a port are allowed."""
    name = host.strip().lower()
    if name.startswith("["):
        name = name[1:].partition("]")[0]
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    name = name.rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def is_loopback_url(url: str) -> bool:
    return is_loopback_host(urlsplit(url).netloc.rpartition("@")[2])
