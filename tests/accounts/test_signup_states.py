"""/accounts/signup/states/: the state select of a country, and its dialling prefix out of band for htmx."""

from __future__ import annotations

import re

import pytest

from storefront.site import countries

pytestmark = pytest.mark.django_db

URL = "/accounts/signup/states/"


def _options(html: str) -> list[str]:
    select = html.split('name="state"')[1].split("</select>")[0]
    return re.findall(r'<option value="([^"]*)"', select)


def test_it_lists_the_states_of_the_country_ending_with_other(client):
    html = client.get(URL, {"country": "US"}, headers={"HX-Request": "true"}).content.decode()
    # "Choose your state or province" first: a change of country picks nothing for the customer.
    assert _options(html) == ["", *countries.states_for("US")]
    assert "California" in _options(html) and _options(html)[-1] == "Other"
    assert re.search(r'<option value="" selected>Choose your state or province</option>', html)
    assert 'id="state-row"' in html
    assert "<html" not in html
    assert '<label for="id_state">' in html
    assert re.search(r'<select name="state"[^>]*required[^>]*id="id_state"', html)


def test_for_htmx_it_also_sends_the_dialling_prefix_out_of_band(client):
    html = client.get(URL, {"country": "DE"}, headers={"HX-Request": "true"}).content.decode()
    assert 'id="country-code-input" hx-swap-oob="true"' in html
    assert re.search(r'<input[^>]*name="country_code"[^>]*value="49"', html)


def test_without_htmx_there_is_no_out_of_band_part(client):
    html = client.get(URL, {"country": "DE"}).content.decode()
    assert "hx-swap-oob" not in html
    assert "Bayern" in _options(html)


def test_changing_the_country_clears_the_state(client):
    # Canada used to get Alberta, its first province, without the customer choosing it.
    html = client.get(URL, {"country": "CA", "state": "Texas"}).content.decode()
    assert "Alberta" in _options(html)
    assert re.search(r'<option value="" selected>Choose your state or province</option>', html)
    assert '<option value="Alberta" selected' not in html
    html = client.get(URL, {"country": "US", "state": "Texas"}).content.decode()
    assert '<option value="Texas" selected>' not in html


def test_a_country_without_states_gets_other_chosen(client):
    from tests.accounts.test_signup import _no_states_country

    code, _, _ = _no_states_country()
    html = client.get(URL, {"country": code}).content.decode()
    assert _options(html) == ["Other"] and '<option value="Other" selected>' in html


def test_a_state_of_another_country_is_not_kept(client):
    html = client.get(URL, {"country": "US", "state": "England"}).content.decode()
    assert "England" not in html
    assert "selected" in html


def test_an_unknown_or_missing_country_offers_no_state_yet(client):
    for query in ({"country": "XX"}, {}):
        html = client.get(URL, query, headers={"HX-Request": "true"}).content.decode()
        assert _options(html) == [""]
        assert "Choose your country first" in html
        assert re.search(r'<input[^>]*name="country_code"(?![^>]*value=)[^>]*>', html)


def test_a_country_without_states_offers_only_other(client):
    code = next(c.alpha2 for c in countries.countries() if c.states == (countries.OTHER,))
    assert _options(client.get(URL, {"country": code}).content.decode()) == ["Other"]


def test_it_answers_get_only(client):
    assert client.post(URL, {"country": "US"}).status_code == 405


@pytest.mark.parametrize(("language", "shown"), [("de", "Sonstige"), ("fr", "Autre"), ("es", "Otro")])
def test_other_is_shown_in_the_customers_language_and_sent_as_other(client, settings, language, shown):
    # The provider takes "Other" as the value; the customer reads it in their language, as the help text names it.
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html = client.get(URL, {"country": "DE"}).content.decode()
    assert _options(html)[-1] == "Other"
    assert f'<option value="Other">{shown}</option>' in html
    assert shown in html.split('class="helptext"')[1].split("</span>")[0]
