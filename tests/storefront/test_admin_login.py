"""/admin/login/: wrong guesses are limited per address, so a guessed password is not accepted after many tries."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db

URL = "/admin/login/"
PASSWORD = "Staff#12345-right"


@pytest.fixture
def staff():
    return get_user_model().objects.create_superuser("staff@example.org", "staff@example.org", PASSWORD)


def _try(client, password: str):
    return client.post(URL, {"username": "staff@example.org", "password": password, "next": "/admin/"})


def test_the_right_password_signs_in(client, staff):
    response = _try(client, PASSWORD)
    assert response.status_code == 302
    assert response.url == "/admin/"


def test_after_ten_wrong_guesses_even_the_right_password_is_turned_away(client, staff):
    for attempt in range(10):
        assert _try(client, f"wrong-{attempt}").status_code == 200  # the form again, with its error
    response = _try(client, PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session


def test_other_addresses_are_not_limited(client, staff):
    for attempt in range(11):
        _try(client, f"wrong-{attempt}")
    assert (
        client.post(
            URL, {"username": "staff@example.org", "password": PASSWORD, "next": "/admin/"}, REMOTE_ADDR="198.51.100.7"
        ).url
        == "/admin/"
    )
