from django.http import Http404, HttpRequest, HttpResponse


def search(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404  # not built yet
