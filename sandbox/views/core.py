"""The health check and the announced placeholders."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from sandbox.api import Context, endpoint

SERVER_TIME = "%Y-%m-%d %H:%M:%S"


@endpoint(methods=("GET",), groups=("hello",))
def hello(request: HttpRequest, ctx: Context) -> JsonResponse:
    return JsonResponse({"server_time": timezone.now().strftime(SERVER_TIME), "message": "Authorized"})


def placeholder(method: str, *groups: str):
    """An announced endpoint: authenticated, answers 200, does nothing yet."""

    @endpoint(methods=(method,), groups=groups)
    def announced(request: HttpRequest, ctx: Context) -> JsonResponse:
        return JsonResponse({"status": "SUCCESS", "message": "Announced endpoint; not yet available"})

    return announced
