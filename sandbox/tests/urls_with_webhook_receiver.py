"""The sandbox's URLs with the control endpoint, plus a webhook receiver, so a test can watch what the payment sandbox
POSTs. The control endpoint is here too, so that a test's control calls never swap the URLs while the live server
is receiving a delivery (tests/stripe_helpers.control)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from sandbox.tests.urls_with_control import urlpatterns as served

RECEIVED: list[tuple[str, str]] = []


@csrf_exempt
def receiver(request: HttpRequest) -> HttpResponse:
    RECEIVED.append((request.body.decode(), request.headers.get("Stripe-Signature", "")))
    return HttpResponse(status=200)


urlpatterns = [*served, path("receiver", receiver)]
