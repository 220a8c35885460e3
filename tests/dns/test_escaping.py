"""A record value from the provider is shown as text on the DNS page, never as markup (security issue)."""

from __future__ import annotations

import pytest

from tests.dns.conftest import url

pytestmark = pytest.mark.django_db

SCRIPT = '<script>alert("dns")</script>'


def test_a_txt_value_with_markup_is_escaped(signed_in, active_order, add_record):
    add_record("TXT", "evil", SCRIPT)

    html = signed_in.get(url("dns", active_order, "type=TXT")).content.decode()

    assert "&lt;script&gt;alert(" in html
    assert SCRIPT not in html
