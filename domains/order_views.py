from django.http import Http404, HttpRequest, HttpResponse


def orders(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet


def order_detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet


def order_renew(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet


def order_transfer_code(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet
