from django.http import Http404, HttpRequest, HttpResponse


def dns_records(request: HttpRequest, order_id: int) -> HttpResponse:
    raise Http404  # not built yet


def dns_activate(request: HttpRequest, order_id: int) -> HttpResponse:
    raise Http404  # not built yet


def dns_add(request: HttpRequest, order_id: int) -> HttpResponse:
    raise Http404  # not built yet


def dns_change(request: HttpRequest, order_id: int) -> HttpResponse:
    raise Http404  # not built yet


def dns_delete(request: HttpRequest, order_id: int) -> HttpResponse:
    raise Http404  # not built yet
