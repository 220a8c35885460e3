"""/accounts/signup/: every provider rule on the form and what the customer sees (the provider call, made once
the address is confirmed, is in test_signup_verification.py)."""

from __future__ import annotations

import re

import phonenumbers
import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from accounts.forms import SignupForm
from accounts.models import Customer
from storefront.site import countries
from tests.limits import TEST_WINDOW

from .conftest import VALID

User = get_user_model()
URL = "/accounts/signup/"


def _post(client, **changes):
    data = {**VALID, **changes}
    return client.post(URL, {k: v for k, v in data.items() if v is not None})


def _codes(response, field):
    form = response.context["form"]
    return [error.code for error in form.errors.as_data().get(field, [])]


def _no_states_country() -> tuple[str, str, str]:
    """A country without states of its own, with a valid phone number for it."""
    for found in countries.countries():
        if found.states == (countries.OTHER,) and found.dial_code:
            example = phonenumbers.example_number(found.alpha2)
            if example is not None:
                return found.alpha2, found.dial_code, str(example.national_number)
    raise AssertionError("no country without states")


INVALID = [
    # (changes, field, code)
    ({"name": ""}, "name", "required"),
    ({"name": "x" * 256}, "name", "max_length"),
    ({"company": "c" * 256}, "company", "max_length"),
    ({"name": "Ada\x07 Lovelace"}, "name", "unprintable"),
    # The English spelling sent to the provider, as the customer corrects it, keeps the provider's rules.
    ({"name": "José Núñez", "name_ascii": "José Núñez"}, "name_ascii", "non_ascii"),
    ({"name_ascii": "n" * 256}, "name_ascii", "max_length"),
    # Its automatic form too: 200 Chinese characters take more than 255 English letters.
    ({"city": "\u5317" * 200}, "city_ascii", "spelling_too_long"),
    ({"address": ""}, "address", "required"),
    ({"address": "a" * 256}, "address", "max_length"),
    ({"city": ""}, "city", "required"),
    ({"zipcode": ""}, "zipcode", "required"),
    ({"zipcode": "!!!"}, "zipcode", "zipcode_invalid"),
    ({"zipcode": "-1234"}, "zipcode", "zipcode_invalid"),
    ({"zipcode": "1" * 16}, "zipcode", "max_length"),
    ({"zipcode": "SW1Y\u00a04JH"}, "zipcode", "non_ascii"),
    ({"country": ""}, "country", "required"),
    ({"country": "XX"}, "country", "invalid_choice"),
    ({"country": "gb"}, "country", "invalid_choice"),
    ({"country": "GBR"}, "country", "invalid_choice"),
    ({"state": ""}, "state", "required"),
    ({"country": "US", "state": "", "country_code": "1", "phone": "2125551234"}, "state", "required"),
    ({"country": "CA", "state": "", "country_code": "1", "phone": "4165550123"}, "state", "required"),
    ({"state": "California"}, "state", "state_not_in_country"),
    ({"state": "Île-de-France"}, "state", "state_not_in_country"),  # chosen from the list, so never typed
    ({"country_code": ""}, "country_code", "required"),
    ({"country_code": "044"}, "country_code", "country_code_invalid"),
    ({"country_code": "4a"}, "country_code", "country_code_invalid"),
    ({"country_code": "1234"}, "country_code", "max_length"),
    ({"phone": ""}, "phone", "required"),
    ({"phone": "207 946 abcd"}, "phone", "phone_digits"),
    ({"phone": "207#946#0000"}, "phone", "phone_digits"),
    ({"phone": "207-946-000"}, "phone", "phone_invalid"),
    # Italy keeps the 0 in its numbers, and the provider refuses a number starting with 0.
    ({"country_code": "39", "phone": "06 1234 5678"}, "phone", "phone_leading_zero"),
    ({"phone": "1-2-3"}, "phone", "phone_too_short"),
    ({"phone": "1" * 26}, "phone", "max_length"),
    ({"phone": "1234567"}, "phone", "phone_invalid"),
    ({"phone": "+33 1 23 45 67 89"}, "phone", "phone_other_prefix"),
    ({"country_code": "999", "phone": "2079460000"}, "phone", "phone_invalid"),
    ({"phone": "\u0662\u0660\u0667\u0669\u0664\u0666\u0660\u0660\u0660\u0660"}, "phone", "non_ascii"),
    ({"email": ""}, "email", "required"),
    ({"email": "not-an-email"}, "email", "invalid"),
    ({"email": "ada@"}, "email", "invalid"),
    ({"email": "adä@example.org"}, "email", "non_ascii"),
    ({"email": "ada@exämple.org"}, "email", "non_ascii"),
    ({"email": "a" * 250 + "@example.org"}, "email", "max_length"),
    ({"password": "", "password2": ""}, "password", "required"),
    ({"password": "Short#1a", "password2": "Short#1a"}, "password", "password_length"),
    ({"password": "Engine#1843xxxxx", "password2": "Engine#1843xxxxx"}, "password", "password_length"),
    ({"password": "engine#1843x", "password2": "engine#1843x"}, "password", "password_upper"),
    ({"password": "ENGINE#1843X", "password2": "ENGINE#1843X"}, "password", "password_lower"),
    ({"password": "Engine#abcdx", "password2": "Engine#abcdx"}, "password", "password_digit"),
    ({"password": "Engine1843xy", "password2": "Engine1843xy"}, "password", "password_special"),
    ({"password": "Engine-1843x", "password2": "Engine-1843x"}, "password", "password_chars"),
    ({"password": "Engine#1843 x", "password2": "Engine#1843 x"}, "password", "password_chars"),
    ({"password": "Engine#1843é", "password2": "Engine#1843é"}, "password", "non_ascii"),
    ({"password2": "Engine#1843y"}, "password2", "password_mismatch"),
    ({"password2": ""}, "password2", "required"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("changes", "field", "code"), INVALID, ids=[f"{f}-{c}" for _, f, c in INVALID])
def test_it_refuses_each_broken_rule_without_calling_the_provider(client, provider_calls, changes, field, code):
    response = _post(client, **changes)
    assert response.status_code == 200
    assert code in _codes(response, field), response.context["form"].errors.as_data()
    assert provider_calls == []
    assert not User.objects.exists()


@pytest.mark.django_db
def test_it_refuses_a_missing_field_without_calling_the_provider(client, provider_calls):
    for field in ("name", "address", "city", "state", "country", "zipcode", "country_code", "phone", "email"):
        response = _post(client, **{field: None})
        assert "required" in _codes(response, field)
    assert provider_calls == []


@pytest.mark.django_db
def test_it_refuses_an_email_we_already_have_case_insensitively(client, provider_calls, make_local_customer):
    make_local_customer("ada@example.org")
    response = _post(client, email="ADA@Example.org", next="/checkout/")
    assert "email_taken" in _codes(response, "email")
    page = response.content.decode()
    assert "Please sign in instead" in page
    assert 'href="/accounts/login/?next=%2Fcheckout%2F"' in page
    assert provider_calls == []


@pytest.mark.django_db
def test_a_signed_in_customer_is_sent_on_to_next(client, make_local_customer):
    client.force_login(make_local_customer().user)
    assert client.get(URL, {"next": "/checkout/"})["Location"] == "/checkout/"
    assert client.get(URL)["Location"] == "/orders/"


VALID_CASES = [
    {},
    {"company": "Analytical Engines Ltd"},
    {"state": "Other"},
    {"country": "US", "state": "California", "country_code": "1", "phone": "2125551234", "zipcode": "94105"},
    {"country": "DE", "state": "Bayern", "country_code": "49", "phone": "8912345678", "zipcode": "80331"},
    {"country_code": "+44"},
    {"password": "Abc{}1234x", "password2": "Abc{}1234x"},
    {"password": "Zz9~*!@$#%_+.?", "password2": "Zz9~*!@$#%_+.?"},
    {"password": "Aa1:,{}qwert", "password2": "Aa1:,{}qwert"},
    {"email": "Ada.Lovelace+domains@Example.org"},
    {"name": "O'Brien-Smith, Jr."},
    {"zipcode": "SW1Y-4JH"},
]


@pytest.mark.django_db
@pytest.mark.parametrize("changes", VALID_CASES)
def test_it_accepts_valid_details(changes):
    form = SignupForm({**VALID, **changes})
    assert form.is_valid(), form.errors.as_data()
    if "country_code" in changes:
        assert form.cleaned_data["country_code"] == changes["country_code"].removeprefix("+")


PHONES_AS_TYPED = [
    # (prefix, typed, stored): the provider gets the national number as digits, the prefix separately.
    ("49", "+49 30 1234567", "301234567"),  # the prefix typed again, as people copy it from a card
    ("49", "030 1234567", "301234567"),  # with the trunk 0
    ("49", "0049 30 1234567", "301234567"),
    ("44", "020 7946 0000", "2079460000"),
    ("44", "(020) 7946-0000", "2079460000"),
    ("44", "2079460000", "2079460000"),
    ("1", "(212) 555-1234", "2125551234"),
    ("1", "+1 212.555.1234", "2125551234"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "typed", "stored"), PHONES_AS_TYPED)
def test_it_accepts_the_phone_number_as_people_type_it(prefix, typed, stored):
    form = SignupForm({**VALID, "country_code": prefix, "phone": typed})
    assert form.is_valid(), form.errors.as_data()
    assert form.cleaned_data["phone"] == stored
    assert form.details()["phone"] == stored


@pytest.mark.django_db
def test_a_number_with_another_countrys_prefix_says_which_two_disagree(client, provider_calls):
    page = _post(client, country_code="49", phone="+44 20 7946 0000").content.decode()
    assert "This number starts with +44 but the dialling prefix is +49" in page
    assert provider_calls == []


@pytest.mark.django_db
def test_a_spelling_written_with_accents_gets_its_english_form_suggested(client, provider_calls):
    response = _post(client, name="José Müller", name_ascii="José Müller")
    page = response.content.decode()
    assert (
        "Please use English (ASCII) characters only in Name in English letters — the domain registry requires it."
        in page
    )
    assert "You could write it as “Jose Muller”." in page
    # One press fills it in (a button the script reveals); the field itself still holds what was typed.
    assert 'data-field="id_name_ascii" data-value="Jose Muller"' in page
    assert provider_calls == []


def test_ascii_spelling():
    from accounts.forms import ascii_spelling

    assert ascii_spelling("José Müller") == "Jose Muller"
    assert ascii_spelling("Łódź") == "Lodz"
    assert ascii_spelling("Москва") == "Moskva"


@pytest.mark.django_db
def test_a_country_with_states_starts_with_none_chosen(client):
    page = client.get(URL, {"country": "US"}).content.decode()
    select = page.split('name="state"')[1].split("</select>")[0]
    assert re.search(r'<option value="" selected>Choose your state or province</option>', select)
    assert "required" in page.split('name="state"')[1].split(">")[0]
    assert "Please choose your state or province" in _post(client, country="US", state="").content.decode()


@pytest.mark.django_db
def test_without_a_country_there_is_no_state_to_pick_yet(client):
    page = client.get(URL).content.decode()
    select = page.split('name="state"')[1].split("</select>")[0]
    assert re.findall(r'<option value="([^"]*)"', select) == [""]
    assert "Choose your country first" in select


@pytest.mark.django_db
def test_it_accepts_a_country_without_states_with_other():
    code, dial, phone = _no_states_country()
    form = SignupForm({**VALID, "country": code, "state": "Other", "country_code": dial, "phone": phone})
    assert form.is_valid(), form.errors.as_data()


@pytest.mark.django_db
def test_the_page_has_every_field_with_a_label_and_browser_rules(client):
    page = client.get(URL).content.decode()
    for field in SignupForm().fields:  # the currency only where the store sells in more than one (test_currency)
        assert f'name="{field}"' in page
        assert f'for="id_{field}"' in page
    # The number is typed as people write it (spaces, +, a trunk 0): the server reads it with phonenumbers.
    assert re.search(r'<input[^>]*type="tel"[^>]*name="phone"', page)
    assert not re.search(r'<input[^>]*name="phone"[^>]*pattern=', page)
    assert re.search(r'<input[^>]*name="password"[^>]*minlength="9"', page)
    assert re.search(r'<input[^>]*name="password"[^>]*maxlength="15"', page)
    assert re.search(r'<input[^>]*name="name"[^>]*maxlength="255"[^>]*required', page)
    assert re.search(r'<input[^>]*name="company"', page) and not re.search(
        r'<input[^>]*name="company"[^>]*required', page
    )
    assert 'hx-get="/accounts/signup/states/"' in page
    assert 'name="refresh_states"' in page  # the no-JavaScript way to refresh the states
    assert "csrfmiddlewaretoken" in page
    assert '<option value="GB">United Kingdom</option>' in page


@pytest.mark.django_db
def test_without_javascript_a_country_change_offers_its_states_and_keeps_what_was_typed(client, provider_calls):
    response = _post(client, country="US", state="England", refresh_states="1", name="Grace Hopper")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<option value="California">California</option>' in page
    assert "England" not in page
    assert '<option value="" selected>Choose your state or province</option>' in page  # chosen afresh
    assert 'value="Grace Hopper"' in page
    assert re.search(r'<input[^>]*name="country_code"[^>]*value="1"', page)
    assert "Engine#1843x" not in page  # passwords are never sent back
    assert not response.context["form"].is_bound  # no errors shown for a refresh
    assert provider_calls == []
    assert not User.objects.exists()


@pytest.mark.django_db
def test_a_state_of_the_old_country_is_refused_and_the_new_states_offered(client, provider_calls):
    response = _post(client, country="US", state="England", country_code="1", phone="2125551234")
    assert "state_not_in_country" in _codes(response, "state")
    page = response.content.decode()
    assert "Please choose a state or province of United States (or Other)." in page
    assert '<option value="Texas">Texas</option>' in page
    assert 'value="Ada Lovelace"' in page
    assert provider_calls == []


@pytest.mark.django_db
def test_the_live_email_check_answers_alike_for_taken_and_free_addresses(client, make_local_customer):
    make_local_customer("taken@example.org")
    ok = client.get(URL, {"validate": "email", "email": "new@example.org"}, headers={"HX-Request": "true"})
    taken = client.get(URL, {"validate": "email", "email": "Taken@example.org"}, headers={"HX-Request": "true"})
    assert "This looks like an email address." in ok.content.decode()
    assert "<html" not in ok.content.decode()
    # Nobody can probe who has an account without submitting the (rate-limited) form.
    assert taken.content.decode() == ok.content.decode()
    bad = client.get(URL, {"validate": "email", "email": "nope"}, headers={"HX-Request": "true"})
    assert "Enter a valid email address." in bad.content.decode()


@pytest.mark.django_db
def test_the_live_email_check_does_not_reveal_a_pending_signup(client, make_local_customer):
    pending = make_local_customer("pending@example.org")
    Customer.objects.filter(pk=pending.pk).update(customer_id=None)
    User.objects.filter(pk=pending.user.pk).update(is_active=False)
    html = client.get(URL, {"validate": "email", "email": "pending@example.org"}, headers={"HX-Request": "true"})
    assert "waiting for confirmation" not in html.content.decode()
    assert "This looks like an email address." in html.content.decode()


@pytest.mark.django_db
def test_it_offers_exactly_the_states_of_the_providers_countries_file(client):
    path = __import__("pathlib").Path(__file__).resolve().parents[2].parent / "shared/reference/countries.json"
    if not path.exists():
        pytest.skip("the provider's countries file is not beside the repository")
    import json

    rows = json.loads(path.read_text())
    row = next(r for r in rows if r["alpha-2"] == "US")
    with override_settings(COUNTRIES_FILE=str(path)):
        page = client.get(URL, {"country": "US"}).content.decode()
        offered = re.findall(r'<option value="([^"]*)"', page.split('name="state"')[1].split("</select>")[0])
        assert offered == ["", *row["states"]]  # "Choose your state or province" first: nothing preselected
        form = SignupForm(
            {**VALID, "country": "US", "state": row["states"][0], "country_code": "1", "phone": "2125551234"}
        )
        assert form.is_valid(), form.errors.as_data()
        # The file's own spellings are accepted even where they are not ASCII: they are chosen, not typed.
        albania = next(r for r in rows if r["alpha-2"] == "AL")
        accented = next(state for state in albania["states"] if not state.isascii())
        form = SignupForm({**VALID, "country": "AL", "state": accented, "country_code": "355", "phone": "672345678"})
        assert form.is_valid(), form.errors.as_data()
        # A state typed into a forged request is still refused: it is not on the list.
        form = SignupForm({**VALID, "country": "AL", "state": "Bulqizë!", "country_code": "355", "phone": "672345678"})
        assert "state_not_in_country" in [e.code for e in form.errors.as_data()["state"]]


@pytest.mark.django_db
def test_signups_from_one_address_are_rate_limited_before_anything_is_sent(client, provider_calls, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "signup": (2, TEST_WINDOW)}
    for _ in range(2):
        assert _post(client, email="not-an-email").status_code == 200
    response = _post(client)
    assert response.status_code == 429
    assert "Please wait" in response.content.decode()
    assert int(response["Retry-After"]) > 0
    assert provider_calls == []
    assert client.get("/accounts/signup/").status_code == 200  # the page itself is never limited
