"""Refusals typed once, in the gateway: by status *and* body, from the provider's documented texts only."""

import pytest

from storefront.gateway import (
    REFUSALS,
    CustomerExists,
    DuplicateRecord,
    ExpiryChanged,
    GatewayError,
    InvalidDetails,
    InvalidSearchTerm,
    NotFound,
    RegistrationRefused,
    RenewalRefused,
    ResellerGateway,
    Unauthorized,
    Unavailable,
    ValidationRejected,
)
from tests.storefront.scripted_server import Answer, ScriptedServer

KEY = "test_refusals-key"


@pytest.fixture
def server():
    with ScriptedServer().running() as running:
        yield running


@pytest.fixture
def client(server):
    return ResellerGateway(
        base_url=server.url,
        metasearch_url=server.url + "/ms",
        api_key=KEY,
        connect_timeout=0.5,
        read_timeout=1.0,
        get_retries=0,
    )


def _error(message: str) -> dict:
    return {"status": "ERROR", "message": message}


# --- A 200 whose body says ERROR is never success -----------------------------------------------------------


def test_a_renewal_refused_with_200_is_a_refusal_not_a_renewal(client, server):
    server.script(Answer(status=200, body=_error("Failed to renew the domain order")))
    with pytest.raises(RenewalRefused) as caught:
        client.domain_renew(order_id=5, duration=1, expiry_timestamp=1700000000)
    assert caught.value.status == 200
    assert caught.value.provider_message == "Failed to renew the domain order"
    assert "you have not been charged" in caught.value.message


def test_a_dns_change_refused_with_200_is_not_reported_as_done(client, server):
    server.script(Answer(status=200, body=_error("Duplicate record found")))
    with pytest.raises(DuplicateRecord):
        client.dns_record_add(order_id=5, record_type="A", value="203.0.113.1")


def test_a_listing_refused_with_200_does_not_read_as_empty(client, server):
    server.script(Answer(status=200, body=_error("Invalid customer ID")))
    with pytest.raises(NotFound):
        client.domain_orders(customer_id=1)
    server.script(Answer(status=200, body=_error("Invalid order ID")))
    with pytest.raises(NotFound):
        client.dns_records(order_id=1)


def test_a_metasearch_error_body_with_200_is_not_no_domains_found(client, server):
    server.script(Answer(status=200, body={"error": "Domain availability service unavailable"}))
    with pytest.raises(Unavailable):
        client.metasearch(search_term="coffee")
    server.script(
        Answer(status=200, body={"error": "search_term is required and must not be empty after sanitisation"})
    )
    with pytest.raises(InvalidSearchTerm):
        client.metasearch(search_term="!!!")


def test_a_200_error_body_with_an_undocumented_text_is_the_generic_refusal(client, server):
    server.script(Answer(status=200, body=_error("Something new went wrong")))
    with pytest.raises(ValidationRejected) as caught:
        client.dns_activate(order_id=5)
    assert type(caught.value) is ValidationRejected
    assert caught.value.provider_message == "Something new went wrong"
    assert "Something new" not in caught.value.message  # the provider's prose is for staff


# --- The documented texts map to typed exceptions -----------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "status", "text", "expected"),
    [
        ("register", 422, "Unable to register domain", RegistrationRefused),
        ("register", 422, "Invalid customer ID", NotFound),
        ("renew", 422, "Invalid order ID", NotFound),
        ("renew", 422, "Invalid current expiry timestamp", ExpiryChanged),
        ("renew", 422, "Failed to renew the domain order", RenewalRefused),
        ("signup", 422, "User already exists", CustomerExists),
        ("signup", 500, "Signup Failed, please ensure that all the fields are valid and in English", InvalidDetails),
        ("auto_login", 422, "Invalid customer email", NotFound),
        ("dns_add", 422, "Duplicate record found", DuplicateRecord),
        ("dns_add", 422, "Invalid order ID", NotFound),
    ],
)
def test_documented_texts_become_typed_refusals(client, server, call, status, text, expected):
    server.script(Answer(status=status, body=_error(text)))
    calls = {
        "register": lambda: client.domain_register(customer_id=1, domain_name="a.com", duration=1),
        "renew": lambda: client.domain_renew(order_id=1, duration=1, expiry_timestamp=1),
        "signup": lambda: client.customer_signup(
            name="A",
            address="B",
            city="C",
            state="D",
            country="US",
            zipcode="1",
            country_code="1",
            phone="5",
            email="a@example.org",
            password="Abcdef1#x",
        ),
        "auto_login": lambda: client.customer_auto_login(email="a@example.org"),
        "dns_add": lambda: client.dns_record_add(order_id=1, record_type="A", value="203.0.113.1"),
    }
    with pytest.raises(expected) as caught:
        calls[call]()
    err = caught.value
    assert type(err) is expected
    assert err.provider_message == text
    assert err.status == status
    assert err.message and err.message != text


def test_the_table_holds_only_texts_the_provider_documents():
    import json
    from pathlib import Path

    reference = Path(__file__).resolve().parents[3] / "shared" / "reference"
    documented = (reference / "service-interface.md").read_text() + (reference / "provider-openapi.json").read_text()
    for _endpoint, text in REFUSALS:
        assert json.dumps(text)[1:-1] in documented or text in documented, text


def test_every_refusal_carries_three_things():
    err = RegistrationRefused("Unable to register domain", status=422)
    assert isinstance(err, GatewayError)
    assert (err.provider_message, err.status) == ("Unable to register domain", 422)
    assert err.message.startswith("The domain service refused this registration")
    assert Unauthorized("Unauthorized", status=401).message != "Unauthorized"


# --- Premium ------------------------------------------------------------------------------------------------


def test_a_metasearch_row_flagged_premium_is_never_sellable(client, server):
    row = {
        "domain_name": "gold.com",
        "sld": "gold",
        "tld": "com",
        "available": True,
        "premium": True,
        "type": "result",
        "is_searched_exact": True,
        "pricing": {"currency": "USD", "register": 999, "renew": 999, "period": "year", "summary": ""},
    }
    plain = {**row, "domain_name": "plain.com", "sld": "plain", "premium": False}
    body = {"results": [row, plain], "results_total": 2, "results_hidden": 0, "meta": {"search_term": "gold"}}
    server.script(Answer(body=body))
    gold, plain_row = client.metasearch(search_term="gold").results
    assert gold.premium and not gold.sellable
    assert not plain_row.premium and plain_row.sellable


def test_an_availability_row_flagged_premium_is_never_sellable(client, server):
    rows = [
        {"domain_name": "gold.com", "sld": "gold", "tld": "com", "available": True, "premium": True},
        {"domain_name": "gold.net", "sld": "gold", "tld": "net", "available": True, "premium": False},
    ]
    server.script(Answer(body={"results": rows}))
    premium, plain = client.domain_availability(search_terms="gold", tlds=["com", "net"])
    assert not premium.sellable
    assert plain.sellable


# --- metasearch(read_timeout=...) ---------------------------------------------------------------------------


def test_metasearch_takes_a_longer_read_timeout_for_ai_suggestions(server):
    client = ResellerGateway(
        base_url=server.url,
        metasearch_url=server.url + "/ms",
        api_key=KEY,
        connect_timeout=0.5,
        read_timeout=0.3,
        search_read_timeout=0.3,
        get_retries=0,
    )
    body = {"results": [], "results_total": 0, "results_hidden": 0, "meta": {}, "message": "No results"}
    server.script(Answer(delay=0.6, body=body))
    answer = client.metasearch(search_term="coffee", aisuggest=True, read_timeout=2.0)
    assert answer.results == []
