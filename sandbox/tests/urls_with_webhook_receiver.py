"""The sandbox's URLs plus a webhook receiver, so a test can watch what the payment sandbox POSTs."""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from sandbox.urls import urlpatterns as served

RECEIVED: list[tuple[str, str]] = []


@csrf_exempt
def receiver(request: HttpRequest) -> HttpResponse:
    RECEIVED.append((request.body.decode(), request.headers.get("Stripe-Signature", "")))
    return HttpResponse(status=200)


urlpatterns = [*served, path("receiver", receiver)]
