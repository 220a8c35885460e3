"""One set of password rules, the provider's, for signup, password change and password reset."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError

pytestmark = pytest.mark.django_db

CHANGE = "/accounts/password/change/"
RULE_LINES = (
    "9 to 15 characters",
    "an uppercase letter (A-Z)",
    "a lowercase letter (a-z)",
    "a digit (0-9)",
    "no other symbols, spaces or accents",
)


def _codes(password: str) -> set[str | None]:
    try:
        password_validation.validate_password(password)
    except ValidationError as err:
        return {error.code for error in err.error_list}
    return set()


@pytest.mark.parametrize(
    ("password", "broken"),
    [
        ("Ab1#", {"password_length"}),
        ("Abcdefgh1#Abcdef", {"password_length"}),  # 16
        ("abcdefg1#", {"password_upper"}),
        ("ABCDEFG1#", {"password_lower"}),
        ("Abcdefgh#", {"password_digit"}),
        ("Bqzmwtrv1", {"password_special"}),
        ("Abcdefg1#-", {"password_chars"}),
        ("Abcdéfg1#x", {"password_chars"}),
    ],
)
def test_the_providers_rules_are_a_site_password_validator(password, broken):
    assert _codes(password) == broken


def test_a_password_within_the_rules_passes_and_the_help_text_names_them():
    assert _codes("Engine#1843x") == set()
    help_texts = " ".join(password_validation.password_validators_help_texts())
    assert "9 to 15 characters" in help_texts and "~ * ! @ $ # % _ + . ? : , { }" in help_texts


def _rules_list(page: str, field_id: str) -> str:
    found = re.search(rf'<ul class="password-rules" id="{field_id}_helptext".*?</ul>', page, re.S)
    assert found, f"no rules list for {field_id}"
    return found.group(0)


def _assert_rules_shown(page: str, field_id: str) -> None:
    rules = _rules_list(page, field_id)
    for line in RULE_LINES:
        assert line in rules
    assert "~ * ! @ $ # % _ + . ? : , { }" in rules
    # The input is described by the list, so a screen reader reads the rules with the field.
    assert re.search(rf'<input[^>]*aria-describedby="{field_id}_helptext"[^>]*id="{field_id}"', page) or re.search(
        rf'<input[^>]*id="{field_id}"[^>]*aria-describedby="{field_id}_helptext"', page
    )


def test_signup_change_and_reset_show_the_same_rules_component(client, make_local_customer):
    _assert_rules_shown(client.get("/accounts/signup/").content.decode(), "id_password")
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    _assert_rules_shown(client.get(CHANGE).content.decode(), "id_password1")


def test_the_reset_page_shows_the_rules_too(client, make_local_customer):
    from allauth.account.forms import default_token_generator
    from allauth.account.utils import user_pk_to_url_str

    user = make_local_customer("ada@example.org").user
    link = f"/accounts/password/reset/key/{user_pk_to_url_str(user)}-{default_token_generator.make_token(user)}/"
    form_url = client.get(link)["Location"]
    _assert_rules_shown(client.get(form_url).content.decode(), "id_password1")


def test_too_common_is_reported_under_the_new_password_not_the_confirmation(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    # Within the provider's rules, but on the list of common passwords.
    response = client.post(
        CHANGE, {"oldpassword": "Engine#1843x", "password1": "Password1!", "password2": "Password1!"}
    )
    form = response.context["form"]
    assert [e.code for e in form.errors.as_data()["password1"]] == ["password_too_common"]
    assert "password2" not in form.errors


def test_rule_errors_are_under_the_new_password_and_a_mismatch_under_the_confirmation(client, make_local_customer):
    customer = make_local_customer("ada@example.org")
    client.force_login(customer.user)
    response = client.post(
        CHANGE, {"oldpassword": "Engine#1843x", "password1": "freshstart", "password2": "freshstarts"}
    )
    form = response.context["form"]
    assert {"password_upper", "password_digit", "password_special"} <= {
        e.code for e in form.errors.as_data()["password1"]
    }
    # allauth compares the two once the new password itself is acceptable.
    response = client.post(
        CHANGE, {"oldpassword": "Engine#1843x", "password1": "Fresh#Start42", "password2": "Fresh#Start43"}
    )
    mismatch = response.context["form"].errors
    assert "password1" not in mismatch
    assert mismatch["password2"] == ["You must type the same password each time."]
    customer.user.refresh_from_db()
    assert customer.user.check_password("Engine#1843x")
