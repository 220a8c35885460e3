"""The CSP header built once from settings (storefront.middleware.KeptPolicyCSPMiddleware) is the one django-csp
builds, follows the settings, and leaves nonces and views' own policies to django-csp."""

import pytest
from csp.constants import NONCE
from csp.middleware import CSPMiddleware
from django.http import HttpResponse, HttpResponseNotFound
from django.template import engines
from django.test import RequestFactory, override_settings

from storefront.middleware import KeptPolicyCSPMiddleware

POLICY = {"DIRECTIVES": {"default-src": ["'self'"], "script-src": ["'self'", "https://js.example.com"]}}


def _headers(middleware_class, view=lambda request: HttpResponse("ok")) -> list[str]:
    """The policy header of two responses in a row (the second one is served from what the first kept)."""
    middleware = middleware_class(view)
    answers = []
    for _ in range(2):
        request = RequestFactory().get("/")
        answers.append(middleware(request).headers.get("Content-Security-Policy"))
    return answers


@pytest.mark.django_db
def test_a_page_gets_the_policy_django_csp_builds(client):
    header = client.get("/").headers["Content-Security-Policy"]
    assert [header, header] == _headers(CSPMiddleware) == _headers(KeptPolicyCSPMiddleware)
    assert "script-src 'self'" in header


def test_changed_settings_change_the_header():
    before = _headers(KeptPolicyCSPMiddleware)[1]
    with override_settings(CONTENT_SECURITY_POLICY=POLICY):
        changed = _headers(KeptPolicyCSPMiddleware)
    with override_settings(CONTENT_SECURITY_POLICY=POLICY):
        assert changed == _headers(CSPMiddleware)
    assert "https://js.example.com" in changed[1] and "https://js.example.com" not in before
    assert _headers(KeptPolicyCSPMiddleware)[1] == before


def test_a_views_own_policy_and_a_nonce_still_reach_the_header():
    def updated(request):
        response = HttpResponse("ok")
        response._csp_update = {"img-src": ["https://images.example.com"]}
        return response

    def with_nonce(request):
        return HttpResponse(
            engines["django"]
            .from_string("<script nonce='{{ request.csp_nonce }}'></script>")
            .render({"request": request})
        )

    def exempt(request):
        response = HttpResponse("ok")
        response._csp_exempt = True
        return response

    assert all("https://images.example.com" in header for header in _headers(KeptPolicyCSPMiddleware, updated))
    nonce_policy = {"DIRECTIVES": {"default-src": ["'self'"], "script-src": ["'self'", NONCE]}}
    with override_settings(CONTENT_SECURITY_POLICY=nonce_policy):
        plain, nonced = _headers(KeptPolicyCSPMiddleware)[1], _headers(KeptPolicyCSPMiddleware, with_nonce)
    assert "'nonce-" not in plain
    assert all("'nonce-" in header for header in nonced) and nonced[0] != nonced[1]
    assert _headers(KeptPolicyCSPMiddleware, exempt) == [None, None]
    # And the plain page after them is back to the settings' policy.
    assert _headers(KeptPolicyCSPMiddleware) == _headers(CSPMiddleware)


def test_with_debug_on_djangos_error_pages_get_no_header_as_with_django_csp():
    with override_settings(DEBUG=True):
        missing = _headers(KeptPolicyCSPMiddleware, lambda request: HttpResponseNotFound("no"))
        assert missing == _headers(CSPMiddleware, lambda request: HttpResponseNotFound("no")) == [None, None]
        assert _headers(KeptPolicyCSPMiddleware) == _headers(CSPMiddleware) != [None, None]
