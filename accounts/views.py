from django.contrib.auth import views as auth_views
from django.http import Http404, HttpRequest, HttpResponse


def signup(request: HttpRequest) -> HttpResponse:
    raise Http404  # issue 4


def signup_states(request: HttpRequest) -> HttpResponse:
    raise Http404  # issue 4


def login(request: HttpRequest) -> HttpResponse:
    return auth_views.LoginView.as_view()(request)


def panel(request: HttpRequest) -> HttpResponse:
    raise Http404  # issue 4
