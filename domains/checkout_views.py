from django.http import Http404, HttpRequest, HttpResponse


def checkout(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet


def checkout_done(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet
