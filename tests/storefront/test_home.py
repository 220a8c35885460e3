import pytest
from django.test import override_settings


@pytest.mark.django_db
def test_home_has_a_search_box_and_the_sandbox_banner(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert 'name="q"' in body
    assert "Test storefront" in body
    assert "built-in sandbox" in body


@pytest.mark.django_db
@override_settings(RESELLER_SANDBOX=False, RESELLER_API_KEY="live_" + "a" * 12)
def test_no_banner_with_a_live_key(client):
    body = client.get("/").content.decode()
    assert "Test storefront" not in body


@pytest.mark.django_db
@override_settings(RESELLER_SANDBOX=False, RESELLER_API_KEY="nk_test_" + "a" * 12)
def test_banner_with_a_sandbox_key_of_a_real_provider(client):
    body = client.get("/").content.decode()
    assert "using a sandbox key" in body


@pytest.mark.django_db
def test_layout_shows_sign_in_state_and_cart_count(client, django_user_model):
    session = client.session
    line = {"duration": 1, "currency": "USD", "price": "12.99"}  # the least a cart line needs to count
    session["cart"] = {"one.com": line, "two.net": line}
    session.save()
    body = client.get("/").content.decode()
    assert 'id="cart-count">2<' in body
    assert "Sign in" in body
    user = django_user_model.objects.create_user("a@example.com", "a@example.com", "x")
    client.force_login(user)
    body = client.get("/").content.decode()
    assert "Sign out" in body
    assert "a@example.com" in body
