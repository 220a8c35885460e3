"""storefront.requests.request_helpers.client_address: which address a request comes from, behind N trusted proxies."""

from django.test import RequestFactory, override_settings

from storefront.requests.request_helpers import client_address


def _request(**meta):
    return RequestFactory().get("/", **meta)


def test_it_uses_remote_addr_by_default_and_ignores_x_forwarded_for():
    assert client_address(_request(REMOTE_ADDR="198.51.100.1", HTTP_X_FORWARDED_FOR="1.2.3.4")) == "198.51.100.1"


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_with_one_proxy_it_takes_the_last_forwarded_entry():
    request = _request(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7")
    assert client_address(request) == "203.0.113.7"


@override_settings(TRUSTED_PROXY_COUNT=2)
def test_with_two_proxies_it_takes_the_second_from_the_right():
    request = _request(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7, 10.0.0.1")
    assert client_address(request) == "203.0.113.7"


@override_settings(TRUSTED_PROXY_COUNT=2)
def test_with_fewer_entries_than_proxies_it_falls_back_to_remote_addr():
    assert client_address(_request(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.7")) == "10.0.0.2"
