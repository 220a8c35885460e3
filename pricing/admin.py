"""Staff's view of prices: the provider's cost table (with its age and the last sync), retail rules, the rate."""

from __future__ import annotations

import datetime as dt
from contextvars import ContextVar
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.http import require_POST

from pricing.currencies import currency_table_forget, suggested_ending
from pricing.eu_rates import EU_RATES_VERSION
from pricing.models import (
    CostPrice,
    Currency,
    ExchangeRate,
    PriceRule,
    PriceSync,
    Promotion,
    PromotionRedemption,
    TaxRate,
    TaxRegistration,
    Tld,
)
from pricing.money import format_money
from pricing.promotions import promotion_below_cost
from pricing.quotes import PriceBook, Quote, display_price_book_forget, price_book, rate_problem, rule_below_cost
from pricing.sync import prices_sync
from pricing.tax import oss_rates_missing
from storefront.admin_lists import LargeListAdmin
from storefront.admin_read_only import ReadOnlyAdmin  # the provider's data: staff read it; only a sync writes it

# The prices of the page being rendered: loaded once per request, not once per row (admin instances are shared
# by every thread, so this cannot live on the instance).
_page_book: ContextVar[PriceBook | None] = ContextVar("pricing_admin_book", default=None)

# A cost table older than this is worth a warning: the provider may have changed prices since.
STALE_AFTER = dt.timedelta(days=2)


def pricing_warnings(request: HttpRequest) -> None:
    """What staff must know before trusting the prices: a failed last sync, an old table, a missing rate."""
    last = PriceSync.objects.first()
    if last is None:
        messages.warning(request, "The cost table has never been fetched from the provider: nothing is for sale yet.")
    elif not last.ok:
        when = timezone.localtime(last.started_at).strftime("%Y-%m-%d %H:%M")
        messages.error(request, f"The last price sync ({when}) failed and the previous table is in use: {last.message}")
    last_ok = PriceSync.objects.filter(ok=True).first()
    if last_ok is not None and timezone.now() - last_ok.finished_at > STALE_AFTER:
        messages.warning(
            request, f"The cost table was last confirmed by the provider {timesince(last_ok.finished_at)} ago."
        )
    problem = rate_problem()
    if problem:
        messages.warning(request, problem)


@admin.register(CostPrice)
class CostPriceAdmin(LargeListAdmin, ReadOnlyAdmin):
    list_display = ["tld", "operation", "years", "amount", "currency", "retail", "margin", "current", "age"]
    list_filter = ["operation", "current", "tld__sold", "years"]
    search_fields = ["tld__name"]
    list_select_related = ["tld"]
    change_list_template = "admin/pricing/costprice/change_list.html"

    @admin.display(description="Age", ordering="fetched_at")
    def age(self, obj: CostPrice) -> str:
        return f"{timesince(obj.fetched_at)} ago"

    def _quote(self, obj: CostPrice) -> Quote | None:
        book = _page_book.get() or price_book(tlds=[obj.tld.name])
        if not obj.current:
            return None
        return book.retail_price(tld=obj.tld.name, operation=obj.operation, years=obj.years)

    @admin.display(description="Retail now")
    def retail(self, obj: CostPrice) -> str:
        quote = self._quote(obj)
        return format_money(quote.retail) if quote else "not for sale"

    @admin.display(description="Margin")
    def margin(self, obj: CostPrice) -> str:
        quote = self._quote(obj)
        return format_money(quote.margin) if quote else "—"

    def get_urls(self) -> list[URLPattern]:
        sync = self.admin_site.admin_view(require_POST(self.sync_view))
        return [path("sync/", sync, name="pricing_costprice_sync"), *super().get_urls()]

    def sync_view(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("pricing.add_pricesync"):
            messages.error(request, "You may not refresh prices.")
        else:
            result = prices_sync()
            if result.ok:
                messages.success(request, result.message)
                for warning in result.warnings:
                    messages.warning(request, warning)
            else:
                messages.error(request, f"Price sync failed; the previous table stays in use. {result.message}")
        return HttpResponseRedirect(reverse("admin:pricing_costprice_changelist"))

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "GET":
            pricing_warnings(request)
        response = super().changelist_view(request, extra_context)
        if not isinstance(response, TemplateResponse) or response.context_data is None:
            return response
        # The prices of the page's TLDs only (a page of 50 rows, not a table of 100,000), read once.
        rows = response.context_data["cl"].result_list
        token = _page_book.set(price_book(tlds={row.tld.name for row in rows}))
        try:
            response.render()  # the rows are priced while rendering: do it while the book is set
            return response
        finally:
            _page_book.reset(token)


class CostInline(admin.TabularInline):
    model = CostPrice
    fields = readonly_fields = ("operation", "years", "amount", "currency", "current", "fetched_at")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tld)
class TldAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "sold", "privacy_available", "restrictions", "first_seen_at", "dropped_at"]
    list_filter = ["sold", "privacy_available"]
    search_fields = ["name", "restrictions"]
    inlines = [CostInline]


class PriceRuleForm(forms.ModelForm):
    class Meta:
        model = PriceRule
        fields = ["tld", "operation", "kind", "percent", "amount", "note"]

    def clean_tld(self) -> str:
        return PriceRule.tld_normal(self.cleaned_data["tld"])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        # A rule that would sell below today's cost is refused. The instance takes the form's values only after
        # clean(): the guard reads them from the form.
        draft = PriceRule(
            tld=data["tld"],
            operation=data["operation"],
            kind=data["kind"],
            percent=data["percent"],
            amount=data["amount"],
        )
        problem = None if draft.percent_too_low() else rule_below_cost(rule=draft)  # the model's clean() says why
        if problem:
            raise forms.ValidationError(problem, code="below_cost")
        return data


@admin.register(PriceRule)
class PriceRuleAdmin(admin.ModelAdmin):
    form = PriceRuleForm

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        display_price_book_forget()  # the search pages of this process show it at once, others within seconds

    list_display = ["__str__", "kind", "percent", "amount", "note", "updated_at"]
    list_filter = ["kind", "operation"]
    search_fields = ["tld", "note"]
    fields = ["tld", "operation", "kind", "percent", "amount", "note"]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "GET":
            messages.info(
                request,
                f"Without a rule, prices are cost + {settings.PRICE_MARKUP_PERCENT}% + "
                f"{settings.PRICE_MARKUP_FIXED} {settings.STORE_CURRENCY} per year (PRICE_MARKUP_*), rounding: "
                f"{settings.PRICE_ROUNDING}. The most specific rule wins: TLD and operation, then TLD, then operation.",
            )
        return super().changelist_view(request, extra_context)


@admin.register(ExchangeRate)
class ExchangeRateAdmin(admin.ModelAdmin):
    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        display_price_book_forget()  # the search pages of this process show it at once, others within seconds

    list_display = ["__str__", "updated_at"]
    fields = ["provider_currency", "store_currency", "rate"]

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, str | list[str]]:
        return {"provider_currency": "USD", "store_currency": settings.STORE_CURRENCY}

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "GET":
            problem = rate_problem()
            if problem:
                messages.warning(request, problem)
        return super().changelist_view(request, extra_context)


@admin.register(PriceSync)
class PriceSyncAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "ok", "tld_count", "changed_count", "dropped", "message"]
    list_filter = ["ok"]


class PromotionForm(forms.ModelForm):
    """The cost guard at entry: a promotion that would take a price below its cost is saved only once staff say
    those lines get their discount capped at cost, or mark it a loss leader with a cap."""

    capped_ok = forms.BooleanField(
        required=False,
        label="Cap at cost",
        help_text="Where the discount would sell below cost, take off only down to the cost.",
    )

    class Meta:
        model = Promotion
        fields = [
            "code",
            "description",
            "kind",
            "value",
            "applies_to",
            "tlds",
            "starts_at",
            "ends_at",
            "max_redemptions",
            "max_per_customer",
            "active",
            "loss_leader",
            "loss_leader_cap",
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        # The instance takes the form's values only after clean(): the guard reads them from the form.
        draft = Promotion(
            kind=data["kind"], value=data["value"], applies_to=data["applies_to"], tlds=data.get("tlds") or ""
        )
        below = promotion_below_cost(draft) if draft.value else []
        if below and not data.get("loss_leader") and not data.get("capped_ok"):
            # One sentence: how many prices, one example, and what to do (a list of every TLD and term buries it).
            raise forms.ValidationError(
                f"This promotion would sell {len(below)} of today's prices below their cost and card fee (e.g. "
                f"{below[0]}): tick 'Cap at cost' to stop each at its cost and fee, or mark it a loss leader with a "
                "cap on how many lines may be sold at a loss.",
                code="below_cost",
            )
        return data


class PromotionRedemptionInline(admin.TabularInline):
    """The lines bought with the code (a released one was not delivered and no longer counts)."""

    model = PromotionRedemption
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "reference",
        "operation",
        "customer_id",
        "list_amount",
        "discount",
        "below_cost",
        "created_at",
        "released_at",
    )

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Promotion)
class PromotionAdmin(admin.ModelAdmin):
    form = PromotionForm
    inlines = [PromotionRedemptionInline]
    list_display = ["code", "kind", "value", "applies_to", "tlds", "starts_at", "ends_at", "active", "used"]
    list_filter = ["active", "applies_to", "kind", "loss_leader"]
    search_fields = ["code", "description"]
    readonly_fields = ["cost_guard", "used"]
    fields = [*PromotionForm.Meta.fields, "capped_ok", "cost_guard", "used"]

    @admin.display(description="Uses (lines)")
    def used(self, obj: Promotion) -> str:
        if obj.pk is None:
            return "-"
        taken = obj.redemptions.filter(released_at__isnull=True)
        below = taken.filter(below_cost=True).count()
        return f"{taken.count()} ({below} below cost)" if obj.loss_leader else str(taken.count())

    @admin.display(description="Below cost at today's prices")
    def cost_guard(self, obj: Promotion) -> str:
        if obj.pk is None:
            return "Checked when you save."
        below = promotion_below_cost(obj)
        if not below:
            return "None: every line it touches stays at or above its cost."
        how = "sold at a loss up to the cap" if obj.loss_leader else "capped at cost"
        return f"{'; '.join(below[:20])}{' …' if len(below) > 20 else ''} ({how})"


@admin.register(Currency)
class CurrencyAdmin(admin.ModelAdmin):
    """The currencies the store sells in besides its own: rate, who set it and when, and the price ending."""

    list_display = ["code", "enabled", "rate_shown", "rate_from_feed", "rate_set_at", "rate_set_by", "price_ending"]
    list_filter = ["enabled", "rate_from_feed"]
    fields = ["code", "enabled", "rate", "rate_from_feed", "price_ending", "rate_set_at", "rate_set_by"]
    readonly_fields = ["rate_set_at", "rate_set_by"]

    @admin.display(description="Rate")
    def rate_shown(self, obj: Currency) -> str:
        return f"1 {settings.STORE_CURRENCY} = {obj.rate} {obj.code}" if obj.rate is not None else "not set"

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, str | list[str]]:
        code = str(request.GET.get("code", "")).upper()
        return {"code": code, "price_ending": str(suggested_ending(code))} if len(code) == 3 else {}

    def save_model(self, request: HttpRequest, obj: Currency, form: Any, change: bool) -> None:
        if "rate" in form.changed_data:
            obj.rate_set_at, obj.rate_set_by, obj.stale_alerted_at = timezone.now(), request.user.get_username(), None
        super().save_model(request, obj, form, change)
        # This process's pages show it at once, other processes' within seconds (their copies expire).
        currency_table_forget()
        display_price_book_forget()

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "GET":
            feed = settings.CURRENCY_FEED_URL or "off (CURRENCY_FEED_URL is empty)"
            messages.info(
                request,
                f"Rates are units of each currency per 1 {settings.STORE_CURRENCY} (the store's currency). "
                f"Prices are converted at them, then rounded up to the price ending. Rate feed: {feed}.",
            )
        return super().changelist_view(request, extra_context)


@admin.register(TaxRegistration)
class TaxRegistrationAdmin(admin.ModelAdmin):
    """The store's own VAT/GST registration (one): printed on receipts and credit notes; without it no tax is
    charged. Payments keep the registration they were made under."""

    list_display = ("name", "tax_id", "country", "oss")

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Asked twice on the admin's index (the app list and the sidebar): once per request is enough.
        known = getattr(request, "tax_registration_exists", None)
        if known is None:
            known = TaxRegistration.objects.exists()
            setattr(request, "tax_registration_exists", known)  # noqa: B010  # HttpRequest has no such field to type
        return not known

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "GET":
            messages.info(
                request,
                f"With OSS ticked, EU consumers are charged their country's standard rate as the European Commission "
                f"published it (eu-vat-rates-data, rates of {EU_RATES_VERSION}); a tax rate of yours wins over it.",
            )
            missing = oss_rates_missing()
            if missing:
                messages.error(request, f"No VAT rate for {', '.join(missing)}: add one under Tax rates.")
        return super().changelist_view(request, extra_context)


@admin.register(TaxRate)
class TaxRateAdmin(admin.ModelAdmin):
    """Tax charged by the customer's country (a region's rate wins: a US state, a Canadian province). A country
    without a rate is charged no tax. Payments keep the rate they were charged."""

    list_display = ("country", "region", "label", "rate")
    list_filter = ("label",)
    search_fields = ("country", "region")
