"""Tax Rates and the tax amounts of Checkout Sessions: per line, rounded on the line as Stripe's tax rates guide
computes them, inclusive inside the amount and exclusive on top; the intent's amount is the total."""

from __future__ import annotations

import pytest
from django.test import Client

from sandbox.tests.stripe_helpers import Api, control, page_path, sdk

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Api:
    return Api()


def _rate(api: Api, percentage: str, *, inclusive: bool, name: str = "VAT") -> dict:
    response = api.post(
        "tax_rates",
        {
            "display_name": name,
            "percentage": percentage,
            "inclusive": "true" if inclusive else "false",
            "country": "DE",
            "jurisdiction": "DE",
        },
    )
    assert response.status_code == 200, response.content
    return response.json()


def _taxed_session(api: Api, lines: list[tuple[int, list[str]]], currency: str = "eur") -> dict:
    form = {"mode": "payment", "success_url": "https://shop.example/", "payment_intent_data[capture_method]": "manual"}
    for index, (unit_amount, rates) in enumerate(lines):
        form |= {
            f"line_items[{index}][price_data][currency]": currency,
            f"line_items[{index}][price_data][unit_amount]": str(unit_amount),
            f"line_items[{index}][price_data][product_data][name]": f"domain {index}",
            f"line_items[{index}][quantity]": "1",
        }
        form |= {f"line_items[{index}][tax_rates][{position}]": rate for position, rate in enumerate(rates)}
    response = api.post("checkout/sessions", form)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_tax_rate_is_created_and_read_back(api):
    rate = _rate(api, "7.25", inclusive=False, name="Sales Tax")
    assert rate["id"].startswith("txr_")
    assert (rate["object"], rate["percentage"], rate["inclusive"], rate["active"]) == ("tax_rate", 7.25, False, True)
    assert (rate["display_name"], rate["country"], rate["jurisdiction"]) == ("Sales Tax", "DE", "DE")
    assert api.get(f"tax_rates/{rate['id']}").json() == rate
    missing = api.post("tax_rates", {"display_name": "VAT", "percentage": "20"}).json()["error"]
    assert (missing["code"], missing["param"]) == ("parameter_missing", "inclusive")


def test_exclusive_tax_is_added_on_top_and_rounded_per_line(api):
    rate = _rate(api, "5", inclusive=False)["id"]
    # 5.00 at 5% -> 0.25; 10.01 at 5% -> 0.5005, rounded on its line -> 0.50.
    made = _taxed_session(api, [(500, [rate]), (1001, [rate])])
    assert (made["amount_subtotal"], made["total_details"]["amount_tax"], made["amount_total"]) == (1501, 75, 1576)
    control("POST", f"sessions/{made['id']}/pay", {"card": "4242424242424242"})
    intent = api.get(f"checkout/sessions/{made['id']}", "expand[]=payment_intent").json()["payment_intent"]
    assert intent["amount"] == 1576


def test_inclusive_tax_is_inside_the_amount_rounded_per_line_as_stripes_guide_shows(api):
    rate = _rate(api, "10", inclusive=True)["id"]
    # The guide's "line item level" example: 1,000.00 and 50.00 at 10% inclusive -> 90.91 + 4.55 = 95.46.
    made = _taxed_session(api, [(100000, [rate]), (5000, [rate])])
    assert (made["amount_subtotal"], made["total_details"]["amount_tax"], made["amount_total"]) == (
        105000,
        9546,
        105000,
    )
    listed = api.get(f"checkout/sessions/{made['id']}/line_items").json()
    assert listed["url"] == f"/v1/checkout/sessions/{made['id']}/line_items"
    assert [(line["amount_tax"], line["taxes"][0]["taxable_amount"]) for line in listed["data"]] == [
        (9091, 90909),
        (455, 4545),
    ]
    expanded = api.get(f"checkout/sessions/{made['id']}", "expand[]=line_items").json()["line_items"]
    assert expanded == listed


def test_inclusive_and_exclusive_rates_on_one_line(api):
    inclusive = _rate(api, "5", inclusive=True)["id"]
    exclusive = _rate(api, "7", inclusive=False, name="Sales tax")["id"]
    # The guide's example after its discount: 4.50 -> 0.21 included, 7% of 4.29 = 0.30 added: 4.80.
    made = _taxed_session(api, [(450, [inclusive, exclusive])])
    assert (made["amount_subtotal"], made["total_details"]["amount_tax"], made["amount_total"]) == (450, 51, 480)
    breakdown = api.get(f"checkout/sessions/{made['id']}", "expand[]=total_details.breakdown").json()
    taxes = breakdown["total_details"]["breakdown"]["taxes"]
    assert sorted((tax["rate"]["id"], tax["amount"]) for tax in taxes) == sorted([(inclusive, 21), (exclusive, 30)])


def test_the_hosted_page_shows_the_tax_lines(api):
    rate = _rate(api, "19", inclusive=False, name="MwSt")["id"]
    made = _taxed_session(api, [(1000, [rate])])
    page = Client().get(page_path(made)).content.decode()
    assert "MwSt (19.0%)" in page and "1.90 EUR" in page and "Pay 11.90 EUR" in page


def test_unknown_or_archived_rates_are_refused(api):
    archived = api.post(
        "tax_rates", {"display_name": "Old", "percentage": "16", "inclusive": "false", "active": "false"}
    ).json()["id"]
    form = {
        "mode": "payment",
        "success_url": "https://shop.example/",
        "line_items[0][price_data][currency]": "eur",
        "line_items[0][price_data][unit_amount]": "100",
        "line_items[0][price_data][product_data][name]": "a",
        "line_items[0][quantity]": "1",
    }
    unknown = api.post("checkout/sessions", {**form, "line_items[0][tax_rates][0]": "txr_nothing"}).json()["error"]
    assert (unknown["code"], unknown["param"]) == ("resource_missing", "line_items[0][tax_rates][0]")
    old = api.post("checkout/sessions", {**form, "line_items[0][tax_rates][0]": archived}).json()["error"]
    assert (old["param"], old["message"]) == (
        "line_items[0][tax_rates][0]",
        f"Tax rate {archived} is archived (inactive): it cannot be applied.",
    )


@pytest.mark.django_db(transaction=True)
def test_the_sdk_creates_a_rate_and_a_taxed_session(live_server):
    client = sdk(live_server)
    rate = client.v1.tax_rates.create(params={"display_name": "VAT", "percentage": 20, "inclusive": False})
    made = client.v1.checkout.sessions.create(
        params={
            "mode": "payment",
            "success_url": "https://shop.example/",
            "line_items": [
                {
                    "price_data": {"currency": "gbp", "unit_amount": 1299, "product_data": {"name": "a.co.uk"}},
                    "quantity": 2,
                    "tax_rates": [rate.id],
                }
            ],
        }
    )
    # 25.98 at 20%: 5.196 -> 5.20.
    assert (made.amount_subtotal, made.total_details.amount_tax, made.amount_total) == (2598, 520, 3118)
    assert client.v1.tax_rates.retrieve(rate.id).percentage == 20.0
