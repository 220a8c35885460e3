"""The storefront's admin: the task queue (django-tasks-db's own admin, with the error shown and a retry action),
the legal texts customers accepted, the outbox of emails, and the provider call log."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.db.models.functions import Reverse
from django.http import HttpRequest
from django.utils import timezone
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult, DBTaskResultQuerySet

from storefront.admin_lists import LargeListAdmin
from storefront.admin_read_only import ReadOnlyAdmin
from storefront.models import LegalText, OutgoingEmail, ProviderCall

# Django's navigation sidebar takes 300 px of a 1280 px screen beside each list's own filters, which cut the lists'
# last columns off; the breadcrumbs and the index lead everywhere it did.
admin.site.enable_nav_sidebar = False

admin.site.unregister(DBTaskResult)


@admin.register(DBTaskResult)
class TaskResultAdmin(LargeListAdmin, DBTaskResultAdmin):
    # django-tasks-db declares these tuples unannotated, so mypy takes their exact lengths for their types.
    list_display = ("task_name", "status", "error", "enqueued_at", "run_after", "finished_at", "attempts")  # type: ignore[assignment]
    list_filter = ("status", "queue_name")  # type: ignore[assignment]
    # A task's name as the list shows it (the end of its path), the start of its dotted path, or its id.
    search_fields = ("^task_path",)
    search_by_uuid = ("id",)
    actions = ["retry"]

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> tuple[Any, bool]:
        term = search_term.strip()
        if term and "." not in term and not _is_uuid(term):
            # The end of the path, as its reverse's start: an index on the reversed path answers it.
            reversed_path = queryset.annotate(path_reversed=Reverse("task_path"))
            return reversed_path.filter(path_reversed__startswith=term[::-1]), False
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description="error")
    def error(self, obj: DBTaskResult) -> str:
        if not obj.exception_class_path:
            return ""
        # The last line of the traceback is the exception and its message.
        last = obj.traceback.strip().splitlines()[-1] if obj.traceback else ""
        return last[:200] or obj.exception_class_path

    @admin.display(description="workers")
    def attempts(self, obj: DBTaskResult) -> int:
        return len(obj.worker_ids or [])

    @admin.action(description="Retry the selected failed tasks (a new run with the same arguments)")
    def retry(self, request: HttpRequest, queryset: DBTaskResultQuerySet) -> None:
        failed = list(queryset.failed())
        for result in failed:
            args = result.args_kwargs or {}
            result.task.enqueue(*args.get("args", []), **args.get("kwargs", {}))
        skipped = queryset.count() - len(failed)
        self.message_user(request, f"{len(failed)} task(s) enqueued again.", messages.SUCCESS)
        if skipped:
            self.message_user(request, f"{skipped} selected task(s) had not failed and were left alone.")

    def has_change_permission(self, request: HttpRequest, obj: DBTaskResult | None = None) -> bool:
        # Actions need change permission on the changelist; the form itself stays read-only (all fields are).
        return obj is None and request.user.has_perm("django_tasks_database.change_dbtaskresult")


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


@admin.register(LegalText)
class LegalTextAdmin(ReadOnlyAdmin):
    """Each version of a legal page that customers accepted, with its words (the pages are edited under Flat
    pages; a version is kept here the first time it is accepted)."""

    list_display = ("url", "version", "title", "first_accepted_at")
    list_filter = ("url",)
    search_fields = ("=version",)


@admin.register(OutgoingEmail)
class OutgoingEmailAdmin(ReadOnlyAdmin):
    """What the store emailed (or is about to), to whom and whether it went out; 'Send again' puts a failing one
    first in line (it was already retried on its own). An email carrying a secret link is shown without its body:
    it is only made when sent, and never kept."""

    list_display = ("subject_or_kind", "recipients", "created_at", "sent_at", "attempts", "last_error")
    list_filter = (("sent_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("=key", "^thread", "subject")
    date_hierarchy = "created_at"
    show_full_result_count = False
    fields = (
        ("key", "thread"),
        ("to", "from_email"),
        "subject",
        "body",
        "renderer",
        ("created_at", "send_after", "sent_at", "dropped_at"),
        ("attempts", "last_error"),
    )
    actions = ["send_now"]

    @admin.display(description="email")
    def subject_or_kind(self, email: OutgoingEmail) -> str:
        return email.subject or email.renderer.replace("_", " ")

    @admin.display(description="to")
    def recipients(self, email: OutgoingEmail) -> str:
        return ", ".join(email.to)

    @admin.action(description="Send the selected unsent emails at the next sweep")
    def send_now(self, request: HttpRequest, queryset: QuerySet[OutgoingEmail]) -> None:
        count = queryset.filter(sent_at__isnull=True, dropped_at__isnull=True).update(send_after=timezone.now())
        self.message_user(request, f"{count} email(s) will be sent within a minute.", messages.SUCCESS)

    def has_change_permission(self, request: HttpRequest, obj: OutgoingEmail | None = None) -> bool:
        # The action needs change permission on the list; each email stays read-only.
        return obj is None and request.user.has_perm("storefront.change_outgoingemail")


@admin.register(ProviderCall)
class ProviderCallAdmin(LargeListAdmin, ReadOnlyAdmin):
    """Every call to the provider, kept PROVIDER_CALL_LOG_DAYS days: search by the reference a customer quotes (our
    request id, shown on the error pages), by the provider's request id (its support's question), or by the
    customer's email address."""

    list_display = (
        "created_at",
        "request_id",
        "method",
        "path",
        "status",
        "duration_ms",
        "provider_request_id",
        "user",
    )
    list_filter = ("service", "status")
    search_fields = ("=request_id", "=provider_request_id")
    search_by_email = ("^user__email",)
    list_select_related = ("user",)
