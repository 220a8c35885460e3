"""The month's demand for staff, and its CSV to send the provider."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone

from demand.features import FEATURES
from demand.models import DemandCount, DemandSubscription, FeatureState
from demand.services import demand_month, demand_month_csv, demand_waiting


def _month(raw: str) -> dt.date:
    try:
        return dt.datetime.strptime(raw, "%Y-%m").date()
    except ValueError:
        return timezone.now().astimezone(dt.UTC).date().replace(day=1)


@admin.register(DemandCount)
class DemandCountAdmin(admin.ModelAdmin):
    """The list is the month's table (feature by TLD), not the rows: the rows name customers, the table does not."""

    def get_urls(self) -> list[URLPattern]:
        return [path("", self.admin_site.admin_view(self.month_view), name="demand_demandcount_changelist")]

    def month_view(self, request: HttpRequest) -> HttpResponse:
        """`?month=YYYY-MM` (default this month); `&format=csv` downloads it."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        month = _month(request.GET.get("month", ""))
        if request.GET.get("format") == "csv":
            response = HttpResponse(demand_month_csv(month), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="demand-{month:%Y-%m}.csv"'
            return response
        waiting = demand_waiting()
        context = {
            **self.admin_site.each_context(request),
            "title": f"Demand for what the provider lacks, {month:%B %Y}",
            "opts": self.model._meta,
            "month": month,
            "previous": (month - dt.timedelta(days=1)).replace(day=1),
            "next": (month + dt.timedelta(days=32)).replace(day=1),
            "rows": demand_month(month),
            "features": [(wanted, waiting.get(wanted.key, 0), wanted.available) for wanted in FEATURES.values()],
        }
        return TemplateResponse(request, "admin/demand/month.html", context)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(DemandSubscription)
class DemandSubscriptionAdmin(admin.ModelAdmin):
    list_display = ["feature", "customer", "created_at", "notified_at"]
    list_filter = ["feature", "notified_at"]
    readonly_fields = ["feature", "customer", "created_at", "notified_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(FeatureState)
class FeatureStateAdmin(admin.ModelAdmin):
    list_display = ["feature", "available", "changed_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
