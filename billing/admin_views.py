"""The staff pages of billing that are more than a list: refunding from a confirmation page that says what will
happen, writing off registered-unpaid payments, and the revenue report (the ledger's figures, with its CSV)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone

from billing.errors import PaymentError
from billing.ledger.report import month_of, revenue_report, revenue_report_csv
from billing.ledger.tax_report import tax_report, tax_report_csv
from billing.models import Payment, PaymentLine
from billing.payments.collection import payment_write_off
from billing.payments.refunds import REFUNDABLE, refund_line
from pricing.money import Money


@dataclass(frozen=True)
class RefundChoice:
    payment: Payment
    lines: list[PaymentLine]

    @property
    def total(self) -> Money:
        return Money(sum((line.gross_amount for line in self.lines), Decimal(0)), self.payment.currency)

    @property
    def rows(self) -> list[tuple[PaymentLine, PaymentLine | None]]:
        """Each line with the line sold with it (a domain's WHOIS privacy, which names it in `domain_name`), which
        stays charged unless it is ticked too."""
        return [(line, companion_of(line, self.lines)) for line in self.lines]


def companion_of(line: PaymentLine, lines: list[PaymentLine]) -> PaymentLine | None:
    return next((other for other in lines if other.details.get("domain_name") == line.reference), None)


def _ids(raw: str) -> list[int]:
    return [int(part) for part in raw.split(",") if part.strip().isdigit()]


def refund_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """GET: the charged lines of the payments in `?payments=1,2` and what refunding each does; POST: refund the ticked
    lines (each once: a second submit finds them refunded)."""
    if not model_admin.has_change_permission(request):
        return TemplateResponse(request, "admin/billing/payment/refund.html", {"denied": True}, status=403)
    ids = _ids(request.GET.get("payments", ""))
    back = reverse("admin:billing_payment_changelist")
    payments = Payment.objects.filter(pk__in=ids).select_related("customer__user").order_by("pk")
    choices = [
        RefundChoice(payment, list(payment.lines.filter(status=PaymentLine.Status.REGISTERED).order_by("position")))
        for payment in payments
        if payment.status in REFUNDABLE
    ]
    choices = [choice for choice in choices if choice.lines]
    if request.method == "POST":
        refunded = _refund_ticked(model_admin, request, choices)
        model_admin.message_user(
            request,
            f"Refunded {refunded} line(s): each domain marked refunded, its auto-renew off, a credit note emailed.",
            messages.SUCCESS if refunded else messages.WARNING,
        )
        return HttpResponseRedirect(back)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Refund charged lines",
        "opts": model_admin.model._meta,
        "choices": choices,
        "skipped": len(ids) - len(choices),
        "back": back,
    }
    return TemplateResponse(request, "admin/billing/payment/refund.html", context)


def write_off_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """GET: the registered-unpaid payments in `?payments=…` and what writing them off means; POST: write them off."""
    if not model_admin.has_change_permission(request):
        return TemplateResponse(request, "admin/billing/payment/write_off.html", {"denied": True}, status=403)
    ids = _ids(request.GET.get("payments", ""))
    back = reverse("admin:billing_payment_changelist")
    unpaid = list(
        Payment.objects.filter(pk__in=ids, status=Payment.Status.UNPAID).select_related("customer__user").order_by("pk")
    )
    if request.method == "POST":
        done = 0
        for payment in unpaid:
            try:
                done += payment_write_off(payment=payment, by=request.user.get_username()).status == "written_off"
            except PaymentError as err:
                model_admin.message_user(request, f"Payment {payment.pk}: {err.message}", messages.ERROR)
        model_admin.message_user(request, f"Wrote off {done} payment(s).", messages.SUCCESS)
        return HttpResponseRedirect(back)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Write off registered, unpaid payments",
        "opts": model_admin.model._meta,
        "payments": unpaid,
        "skipped": len(ids) - len(unpaid),
        "back": back,
    }
    return TemplateResponse(request, "admin/billing/payment/write_off.html", context)


def _refund_ticked(model_admin: admin.ModelAdmin, request: HttpRequest, choices: list[RefundChoice]) -> int:
    """Refund the lines ticked among those offered; how many were refunded (each refusal said beside them)."""
    ticked = set(_ids(",".join(request.POST.getlist("line"))))
    refunded = 0
    for choice in choices:
        for line, companion in choice.rows:
            if line.pk in ticked and companion is not None and companion.pk not in ticked:
                # Said, not refused: keeping privacy paid for a domain given back is a choice staff may make.
                model_admin.message_user(
                    request, f"{companion.description} was kept: not refunded with {line.reference}.", messages.WARNING
                )
    for line in (line for choice in choices for line in choice.lines if line.pk in ticked):
        try:
            refund_line(line=line)
            refunded += 1
        except PaymentError as err:
            model_admin.message_user(request, f"{line.description}: {err.message}", messages.ERROR)
    return refunded


def revenue_report_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """The month's report (`?month=YYYY-MM`, default this month; `&format=csv` downloads it)."""
    return _monthly_report(
        model_admin, request, name="revenue", title="Revenue report", make=revenue_report, csv=revenue_report_csv
    )


def tax_report_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """The month's tax per customer country (`?month=YYYY-MM`, default this month; `&format=csv` downloads it)."""
    return _monthly_report(model_admin, request, name="tax", title="Tax report", make=tax_report, csv=tax_report_csv)


def _monthly_report(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    *,
    name: str,
    title: str,
    make: Callable[..., Any],
    csv: Callable[[Any], str],
) -> HttpResponse:
    """One month of a ledger report: its page, or its CSV file (`&format=csv`); staff without the ledger see neither."""
    template = "admin/billing/report.html" if name == "revenue" else f"admin/billing/{name}_report.html"
    if not model_admin.has_view_permission(request):
        return TemplateResponse(request, template, {"denied": True}, status=403)
    try:
        month = month_of(request.GET["month"]) if request.GET.get("month") else timezone.localdate().replace(day=1)
    except ValueError:
        month = timezone.localdate().replace(day=1)
        messages.warning(request, "The month is written YYYY-MM; showing this month.")
    report = make(month=month)
    if request.GET.get("format") == "csv":
        response = HttpResponse(csv(report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{name}-{month:%Y-%m}.csv"'
        return response
    context: dict[str, Any] = {
        **model_admin.admin_site.each_context(request),
        "title": f"{title}, {report.label}",
        "opts": model_admin.model._meta,
        "report": report,
        "month_value": f"{month:%Y-%m}",
    }
    return TemplateResponse(request, template, context)
