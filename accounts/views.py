from django.http import Http404, HttpRequest, HttpResponse


def signup(request: HttpRequest) -> HttpResponse:
    raise Http404  # built by issue 4


def panel(request: HttpRequest) -> HttpResponse:
    raise Http404  # built by issue 4
