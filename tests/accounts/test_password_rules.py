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


def _codes(password: str) -> set[str]:
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


def test_signup_change_and_reset_show_the_same_rules_component(client, make_customer):
    _assert_rules_shown(client.get("/accounts/signup/").content.decode(), "id_password")
    customer = make_customer("ada@example.org")
    client.force_login(customer.user)
    _assert_rules_shown(client.get(CHANGE).content.decode(), "id_new_password1")


def test_the_reset_page_shows_the_rules_too(client, make_customer):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    user = make_customer("ada@example.org").user
    uid, token = urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)
    link = f"/accounts/password/reset/{uid}/{token}/"
    form_url = client.get(link)["Location"]
    _assert_rules_shown(client.get(form_url).content.decode(), "id_new_password1")


def test_too_common_is_reported_under_the_new_password_not_the_confirmation(client, make_customer):
    customer = make_customer("ada@example.org")
    client.force_login(customer.user)
    # Within the provider's rules, but on the list of common passwords.
    response = client.post(
        CHANGE, {"old_password": "Engine#1843x", "new_password1": "Password1!", "new_password2": "Password1!"}
    )
    form = response.context["form"]
    assert [e.code for e in form.errors.as_data()["new_password1"]] == ["password_too_common"]
    assert "new_password2" not in form.errors


def test_rule_errors_are_under_the_new_password_and_a_mismatch_under_the_confirmation(client, make_customer):
    customer = make_customer("ada@example.org")
    client.force_login(customer.user)
    response = client.post(
        CHANGE, {"old_password": "Engine#1843x", "new_password1": "freshstart", "new_password2": "freshstarts"}
    )
    form = response.context["form"]
    assert {"password_upper", "password_digit", "password_special"} <= {
        e.code for e in form.errors.as_data()["new_password1"]
    }
    assert [e.code for e in form.errors.as_data()["new_password2"]] == ["password_mismatch"]
    customer.user.refresh_from_db()
    assert customer.user.check_password("Engine#1843x")
