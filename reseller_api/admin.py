"""API keys in the admin: staff make one (name and scope), read its secret once on the page that follows, and
revoke it when the system that used it goes away. Keys are never deleted: the activity log names them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from reseller_api.keys import api_key_issue, api_keys_revoke
from reseller_api.models import ApiKey


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "key_start", "scope", "created_at", "created_by", "last_used_at", "revoked_at")
    list_filter = ("scope", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "prefix")
    readonly_fields = ("key_start", "created_at", "created_by", "last_used_at", "revoked_at")
    actions = ("revoke",)

    @admin.display(description="Key starts")
    def key_start(self, obj: ApiKey) -> str:
        return f"rsk_{obj.prefix}_…" if obj.prefix else "—"

    def get_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> Any:
        return ["name", "scope"] if obj is None else ["name", "scope", *self.readonly_fields]

    def get_readonly_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> Any:
        # The name is what the activity log says: renaming a key would rewrite who did what.
        return () if obj is None else ("name", *self.readonly_fields)

    def has_delete_permission(self, request: HttpRequest, obj: ApiKey | None = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ApiKey, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        obj.created_by = request.user if request.user.is_authenticated else None
        obj.issued_secret = api_key_issue(key=obj).secret

    def response_add(self, request: HttpRequest, obj: ApiKey, post_url_continue: str | None = None) -> HttpResponse:
        """The key, this once: a page of its own (not a message, which would keep it in the session or a cookie)."""
        context = {**self.admin_site.each_context(request), "opts": self.opts, "key": obj, "secret": obj.issued_secret}
        response = TemplateResponse(request, "admin/reseller_api/apikey/key_created.html", context)
        add_never_cache_headers(response)
        return response

    @admin.action(description="Revoke the selected keys (their next request is refused)", permissions=("change",))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        revoked = api_keys_revoke(keys=list(queryset))
        self.message_user(request, f"{revoked} key(s) revoked.", messages.SUCCESS)
