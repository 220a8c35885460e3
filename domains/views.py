from django.http import Http404, HttpRequest, HttpResponse


def search(request: HttpRequest) -> HttpResponse:
    raise Http404  # built by issue 5


def cart(request: HttpRequest) -> HttpResponse:
    raise Http404  # built by issue 6


def orders(request: HttpRequest) -> HttpResponse:
    raise Http404  # built by issue 7
