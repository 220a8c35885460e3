from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from storefront.gateway import gateway


@pytest.mark.django_db(transaction=True)
def test_it_reports_the_builtin_sandbox_as_reachable(sandbox_url, sandbox_partner):
    out = StringIO()
    call_command("reseller_check", stdout=out)
    text = out.getvalue()
    assert "built-in sandbox" in text
    assert "sandbox (test) key" in text
    assert "Key works" in text
    assert " ms" in text
    assert "test_sandbox_demo" not in text  # the key itself is never printed


@pytest.mark.django_db(transaction=True)
def test_it_fails_clearly_with_a_refused_key(sandbox_url, sandbox_partner):
    with override_settings(RESELLER_API_KEY="test_not_a_known_key"), pytest.raises(CommandError) as caught:
        gateway.cache_clear()
        call_command("reseller_check", stdout=StringIO())
    gateway.cache_clear()
    assert "Unauthorized" in str(caught.value)
