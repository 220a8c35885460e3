"""/i18n/setlang/: the language form. Mounted before Django's own i18n URLs, whose set_language it wraps."""

from django.urls import path

from accounts.language import language_choose

urlpatterns = [path("setlang/", language_choose, name="set_language")]
