"""The reseller's brand from settings: header, page titles, colour stylesheet and its start-up check, support link,
legal pages in the footer; the defaults keep the storefront as it was."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.sites.models import Site
from django.core.checks import run_checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.template import Context, Template
from django.test import override_settings

from storefront.apps import _sync_site
from storefront.checks import brand_color
from storefront.site.brand import contrast_with_white
from tests.settings_env import settings_with

pytestmark = pytest.mark.django_db

ACME = {
    "STORE_NAME": "Acme Domains",
    "STORE_LEGAL_NAME": "Acme Domains",  # its default, read from STORE_NAME's environment variable
    "STORE_LOGO_URL": "img/favicon.svg",
    "STORE_PRIMARY_COLOR": "#0B6E4F",
    "SUPPORT_EMAIL": "help@acme.example",
}


def _title(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.S)
    assert found is not None, "the page has no title"
    return found.group(1).strip()


@override_settings(**ACME)
def test_the_header_title_and_footer_carry_the_brand(client):
    html = client.get("/").content.decode()
    assert _title(html).endswith("· Acme Domains")
    # Decorative beside the written name: the link's accessible name is the store's name, once.
    assert '<img class="brand-logo" src="/static/img/favicon.svg" alt=""' in html
    assert '<span class="brand-name">Acme Domains</span>' in html
    assert "Domain Store" not in html
    assert '<a href="mailto:help@acme.example">help@acme.example</a>' in html
    cart_title = _title(client.get("/cart/").content.decode())
    assert cart_title.endswith("· Acme Domains") and not cart_title.startswith("·")


@override_settings(STORE_LOGO_URL="https://cdn.acme.example/logo.png", STORE_NAME="Acme Domains")
def test_a_logo_url_is_used_as_given(client):
    html = client.get("/").content.decode()
    assert 'src="https://cdn.acme.example/logo.png" alt=""' in html


def test_the_defaults_look_as_before(client):
    html = client.get("/").content.decode()
    assert _title(html) == "Find your domain · Domain Store"
    assert '<span class="brand-name">Domain Store</span>' in html
    assert "brand-logo" not in html
    assert "brand.css" not in html  # site.css's own blue, no extra request
    assert client.get("/brand.css").content == b""


@override_settings(**ACME)
def test_the_colour_is_served_as_a_cacheable_stylesheet_without_inline_styles(client):
    html = client.get("/").content.decode()
    link = re.search(r'<link rel="stylesheet" href="(/brand\.css\?v=[0-9a-f]{12})">', html)
    assert link, "the page links the brand stylesheet"
    assert "style=" not in html and "<style" not in html
    response = client.get(link.group(1))
    assert response["Content-Type"].startswith("text/css")
    assert "max-age=31536000" in response["Cache-Control"] and "public" in response["Cache-Control"]
    css = response.content.decode()
    assert "--brand: #0b6e4f;" in css
    assert "--brand-dark: #08523b;" in css  # 75 % of each channel: the hover shade
    with override_settings(STORE_PRIMARY_COLOR="#1a4d8f"):
        assert link.group(1) not in client.get("/").content.decode()  # a new colour, a new URL


def test_contrast_is_measured_as_wcag_does():
    assert contrast_with_white("#000000") == pytest.approx(21.0)
    assert contrast_with_white("#ffffff") == pytest.approx(1.0)
    assert contrast_with_white("#2446c7") > 4.5  # today's blue passes


@pytest.mark.parametrize(
    ("color", "expected"),
    [
        ("red", "storefront.E003"),
        ("#abc", "storefront.E003"),
        ("#ffcc00", "storefront.E004"),
        ("#0b6e4f", None),
        ("", None),
    ],
)
def test_the_colour_is_checked_at_start_up(color, expected):
    with override_settings(STORE_PRIMARY_COLOR=color):
        ids = [message.id for message in brand_color()]
        assert ids == ([expected] if expected else [])
        # Registered: `manage.py check` (and every server start) reports it.
        assert [m.id for m in run_checks() if m.id in ("storefront.E003", "storefront.E004")] == ids


def test_a_colour_too_light_is_refused_with_its_measured_contrast():
    with override_settings(STORE_PRIMARY_COLOR="#ffcc00"):
        (error,) = brand_color()
    assert "1.51:1" in error.msg and "4.5:1" in error.msg


def _support(**settings_: str) -> str:
    with override_settings(**settings_):
        return Template("{% load support %}Please {% support_link %}.").render(Context()).strip()


def test_contact_support_is_a_link_when_a_contact_is_set():
    assert _support(SUPPORT_URL="", SUPPORT_EMAIL="") == "Please contact support."
    assert _support(SUPPORT_URL="", SUPPORT_EMAIL="help@acme.example") == (
        'Please <a href="mailto:help@acme.example" class="support-link">contact support</a> (help@acme.example).'
    )
    assert _support(SUPPORT_URL="https://help.acme.example/", SUPPORT_EMAIL="help@acme.example") == (
        'Please <a href="https://help.acme.example/" class="support-link">contact support</a>.'
    )


@override_settings(SUPPORT_URL="https://help.acme.example/", SUPPORT_EMAIL="")
def test_the_footer_links_the_support_page_and_the_legal_pages(client):
    html = client.get("/").content.decode()
    assert '<a href="https://help.acme.example/">Support</a>' in html
    for url, title in (
        ("/legal/terms/", "Terms of service"),
        ("/legal/privacy/", "Privacy policy"),
        ("/legal/registration-agreement/", "Domain registration agreement"),
    ):
        assert f'<a href="{url}">{title}</a>' in html
        page = client.get(url)
        assert page.status_code == 200
        text = page.content.decode()
        assert f"<h1>{title}</h1>" in text
        assert "Domain Store" in text  # the starter text names the store
        assert _title(text) == f"{title} · Domain Store"


@override_settings(STORE_LEGAL_NAME="Acme Domains Ltd", STORE_LEGAL_ADDRESS="1 Main Street\nSpringfield")
def test_the_footer_names_the_legal_entity(client):
    html = client.get("/").content.decode()
    assert "Acme Domains Ltd · 1 Main Street<br>Springfield" in html


def test_the_site_follows_the_store_name_and_url_at_migrate(settings):
    settings.STORE_NAME = "Acme Domains"
    settings.SITE_URL = "https://shop.acme.example"
    _sync_site()
    site = Site.objects.get_current()
    assert (site.name, site.domain) == ("Acme Domains", "shop.acme.example")


def _linked(message: str, **settings_: str) -> str:
    with override_settings(**settings_):
        return Template("{% load support %}{{ message|support_linked }}").render(Context({"message": message}))


def test_sentences_from_python_that_say_contact_support_get_the_link():
    sentence = "Your account could not be used. Please contact support."
    assert _linked(sentence, SUPPORT_URL="", SUPPORT_EMAIL="") == sentence
    assert _linked(sentence, SUPPORT_URL="https://help.acme.example/") == (
        'Your account could not be used. Please <a href="https://help.acme.example/" class="support-link">'
        "contact support</a>."
    )
    assert _linked("On hold. Contact support to lift it.", SUPPORT_URL="https://help.acme.example/") == (
        'On hold. <a href="https://help.acme.example/" class="support-link">Contact support</a> to lift it.'
    )
    # The sentence itself is escaped; only the link is markup.
    assert _linked("<b>contact support</b>", SUPPORT_URL="https://h.example/").startswith("&lt;b&gt;<a ")


def test_a_colour_that_fails_refuses_to_start():
    def check_with(color: str) -> None:
        # The colour as settings.py reads it from the environment, then the operator's `manage.py check`.
        read = settings_with(DJANGO_DEBUG="true", STORE_PRIMARY_COLOR=color)["STORE_PRIMARY_COLOR"]
        with override_settings(STORE_PRIMARY_COLOR=read):
            call_command("check", stdout=StringIO(), stderr=StringIO())

    with pytest.raises(SystemCheckError) as refused:
        check_with("#ffcc00")
    assert "storefront.E004" in str(refused.value) and "1.51:1" in str(refused.value)
    check_with("#0b6e4f")


def test_a_logo_on_another_origin_is_allowed_by_the_content_security_policy():
    shown = settings_with(DJANGO_DEBUG="true", STORE_LOGO_URL="https://cdn.acme.example/brand/logo.svg")
    assert shown["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["img-src"] == ["'self'", "data:", "https://cdn.acme.example"]


@override_settings(STORE_NAME="Acme Domains")
def test_the_admin_pages_carry_the_store_name_not_djangos(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("staff@acme.example", "staff@acme.example", "S#1x"))
    for url in ("/admin/", "/admin/flatpages/flatpage/", "/admin/domains/legalacceptance/"):
        html = client.get(url).content.decode()
        assert _title(html).endswith("| Acme Domains admin"), url
        assert "Acme Domains staff" in html
        assert "Django administration" not in html and "Django site admin" not in html
    # The admin's password change is the storefront's own page (allauth's, in the store's look).
    changed = client.get("/admin/password_change/", follow=True)
    assert changed.redirect_chain[-1][0] == "/accounts/password/change/"
    assert _title(changed.content.decode()).endswith("· Acme Domains")
    # Staff sign in through the storefront's own sign-in page, which carries the brand too.
    client.logout()
    sign_in = client.get("/admin/login/?next=/admin/", follow=True).content.decode()
    assert _title(sign_in).endswith("· Acme Domains") and "Django" not in sign_in
