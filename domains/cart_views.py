from django.http import Http404, HttpRequest, HttpResponse


def cart(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet


def cart_add(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet


def cart_remove(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet


def cart_update(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet
