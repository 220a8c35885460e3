"""Customers in the admin: find them by email or name, see their provider link, their email addresses and two-factor
sign-in, their orders and payments (other apps' inlines) and their activity log. allauth's own list of email addresses
is reached from each customer's page rather than listed as a second "Accounts" section beside ours."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from allauth.account.admin import EmailAddressAdmin
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from accounts.contact_changes import PROVIDER_ENDPOINT, contact_change_mark_done, provider_request
from accounts.models import Activity, ContactChange, Customer
from accounts.signup.spelling import search_form
from accounts.staff.activity import ACTIONS, activity_text
from accounts.tax_details import TAX_DETAIL_FIELDS
from storefront.admin_lists import LargeListAdmin
from storefront.admin_read_only import ReadOnlyAdmin

CONTACT_FIELDS = (
    "name",
    "name_ascii",
    "company",
    "company_ascii",
    "address",
    "address_ascii",
    "city",
    "city_ascii",
    "state",
    "country",
    "zipcode",
    "country_code",
    "phone",
)
# Shown above the contact in the admin.
CONTACT_READ_ONLY = (
    "Read-only: these details are the registrant contact the provider holds for every domain of this customer "
    "(the *_ascii forms are what it is sent). The customer changes them on their Contact details page; a change "
    "the provider cannot take through its interface waits under Contact changes for staff to send."
)


# Without a provider id, a customer either has not confirmed their email yet (no provider call was made: nothing
# for staff to do) or sent the provider signup and never learnt its answer (staff reconcile it). Accounts made
# before confirmation existed were left inactive instead.
_NEEDS_RECONCILIATION = Q(signup_sent_at__isnull=False) | Q(user__is_active=False)


class ProviderLinkFilter(admin.SimpleListFilter):
    title = "provider link"
    parameter_name = "provider_link"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("missing", "Needs reconciliation"), ("unconfirmed", "Email not confirmed yet"), ("linked", "Linked")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Customer]) -> QuerySet[Customer]:
        if self.value() == "missing":
            return queryset.filter(customer_id__isnull=True).filter(_NEEDS_RECONCILIATION)
        if self.value() == "unconfirmed":
            return queryset.filter(customer_id__isnull=True).exclude(_NEEDS_RECONCILIATION)
        if self.value() == "linked":
            return queryset.filter(customer_id__isnull=False)
        return queryset


# Inlines other apps add to the customer's page (their domains, their payments): accounts, the lower layer, must not
# import them, so each app hands its inline over with `customer_inline_add` when its admin module is imported.
_EXTRA_INLINES: list[type[InlineModelAdmin]] = []


def customer_inline_add(inline: type[InlineModelAdmin]) -> None:
    if inline not in _EXTRA_INLINES:
        _EXTRA_INLINES.append(inline)


admin.site.unregister(EmailAddress)


@admin.register(EmailAddress)
class CustomerEmailAddressAdmin(EmailAddressAdmin):
    """allauth's admin of email addresses (mark one verified, change the primary one), opened from the customer's page:
    not listed on the admin's index, where it read as a second "Accounts" section."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return False


# Rows shown on a customer's or a domain's page; the rest is one click away in the log itself.
ACTIVITY_SHOWN = 25


def activity_table(rows: QuerySet[Activity], *, more: str) -> SafeString:
    """The latest rows of the activity log as a small table, with a link to the log filtered by `more`."""
    entries = [{"entry": entry, "text": activity_text(entry)} for entry in rows.order_by("-at", "-pk")[:ACTIVITY_SHOWN]]
    more_url = reverse("admin:accounts_activity_changelist") + more
    return render_to_string("admin/accounts/_activity_table.html", {"rows": entries, "more_url": more_url})


class ActionFilter(admin.SimpleListFilter):
    """The actions the log knows (accounts/staff/activity.py), listed without asking the table for its distinct
    values."""

    title = "action"
    parameter_name = "action"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [(code, code.replace("_", " ")) for code in sorted(ACTIONS)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Activity]) -> QuerySet[Activity]:
        return queryset.filter(action=self.value()) if self.value() else queryset


@admin.register(Activity)
class ActivityAdmin(ReadOnlyAdmin, LargeListAdmin):
    """Who did what: written by the services as each change is made (accounts/staff/activity.py), never by hand. A large
    list: newest first by its indexed time, a search by domain name (its start) or by the customer's address."""

    list_display = ("at", "who", "what", "customer_link", "domain_name")
    list_filter = ("actor", ActionFilter, "at")
    search_fields = ("^domain_name",)
    search_by_email = ("^customer__user__email",)
    list_select_related = ("customer__user",)
    ordering = ("-at", "-pk")

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        # The links from a customer's, a domain's and a payment's page.
        return lookup in ("customer__id__exact", "domain_name", "order_id", "payment_id") or super().lookup_allowed(
            lookup, value, request
        )

    @admin.display(description="who", ordering="actor")
    def who(self, entry: Activity) -> str:
        return f"{entry.get_actor_display()} ({entry.actor_name})" if entry.actor_name else entry.get_actor_display()

    @admin.display(description="what")
    def what(self, entry: Activity) -> str:
        return activity_text(entry)

    @admin.display(description="customer", ordering="customer__user__email")
    def customer_link(self, entry: Activity) -> str:
        if entry.customer is None:
            return "—"
        url = reverse("admin:accounts_customer_change", args=[entry.customer.pk])
        return format_html('<a href="{}">{}</a>', url, entry.customer.user.email)


@admin.register(Customer)
class CustomerAdmin(LargeListAdmin):
    list_display = ("email", "name", "provider_customer_id", "signed_up", "country", "is_active")
    list_filter = (ProviderLinkFilter, "created_at")
    # Any part of the name (a surname; one table, no join), accents and case aside: the term, folded as the
    # customer's `name_search` column is, is looked for there ("jose" finds José Muñoz). An address searches the start
    # of the email (indexed), a number the provider's customer id.
    search_fields = ("name_search",)
    search_by_email = ("^user__email",)
    search_by_number = ("customer_id",)
    list_select_related = ("user",)
    readonly_fields = (
        "user",
        "created_at",
        "reconciliation_help",
        "email_addresses",
        "two_factor",
        *CONTACT_FIELDS,
        "activity",
        *TAX_DETAIL_FIELDS,
    )
    fieldsets = (
        (None, {"fields": ("user", "customer_id", "reconciliation_help", "created_at")}),
        ("Sign-in", {"fields": ("email_addresses", "two_factor")}),
        ("Contact (as the provider holds it)", {"fields": CONTACT_FIELDS, "description": CONTACT_READ_ONLY}),
        # The customer's own (checked for format and check digits, and by VIES where enabled, on /account/tax/):
        # staff read it here.
        (
            "Tax",
            {"fields": TAX_DETAIL_FIELDS},
        ),
        ("Activity (who did what, newest first)", {"fields": ("activity",)}),
    )
    actions = ("discard_unconfirmed",)

    def get_inlines(self, request: HttpRequest, obj: Customer | None) -> list[type[InlineModelAdmin]]:
        return [*super().get_inlines(request, obj), *_EXTRA_INLINES]

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> tuple[Any, bool]:
        if "@" not in search_term and not search_term.strip().isdigit():
            search_term = search_form(search_term)  # as `name_search` holds names
        return super().get_search_results(request, queryset, search_term)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # customers come from signup, which also creates them at the provider

    @admin.action(description="Discard unconfirmed signups (not found at the provider)", permissions=("delete",))
    def discard_unconfirmed(self, request: HttpRequest, queryset: QuerySet[Customer]) -> None:
        # Only pending signups without orders: their user goes too, so the person can sign up afresh.
        pending = queryset.filter(customer_id__isnull=True, orders__isnull=True, user__is_active=False)
        users = get_user_model().objects.filter(customer__in=pending)
        count = users.count()
        users.delete()
        self.message_user(request, f"Discarded {count} unconfirmed signup(s); linked customers were left alone.")

    @admin.display(description="Email", ordering="user__email")
    def email(self, obj: Customer) -> str:
        return obj.user.email

    @admin.display(description="Signup date", ordering="created_at")
    def signed_up(self, obj: Customer):
        # The date alone keeps the column narrow; the time is on the customer's page.
        return timezone.localdate(obj.created_at)

    @admin.display(description="Active", boolean=True, ordering="user__is_active")
    def is_active(self, obj: Customer) -> bool:
        return obj.user.is_active

    @admin.display(description="Provider ID", ordering="customer_id")
    def provider_customer_id(self, obj: Customer) -> str:
        if obj.customer_id is None and obj.signup_sent_at is None and obj.user.is_active:
            return "Email not confirmed yet"
        if obj.customer_id is None:
            return format_html(
                '<strong title="{}">\u26a0 Needs reconciliation</strong>',
                "The provider's answer to signup was lost: find the customer at the provider and enter its ID.",
            )
        return str(obj.customer_id)

    @admin.display(description="Email addresses")
    def email_addresses(self, obj: Customer) -> str:
        addresses = EmailAddress.objects.filter(user_id=obj.user_id).order_by("-primary", "email")
        rows = (
            (
                reverse("admin:account_emailaddress_change", args=[address.pk]),
                address.email,
                ", ".join(word for word, on in (("primary", address.primary), ("verified", address.verified)) if on)
                or "not verified",
            )
            for address in addresses
        )
        return format_html_join(mark_safe("<br>"), '<a href="{}">{}</a> ({})', rows) or "None"

    @admin.display(description="Two-factor sign-in")
    def two_factor(self, obj: Customer) -> str:
        kinds = sorted(
            {kind for kind in Authenticator.objects.filter(user_id=obj.user_id).values_list("type", flat=True)}
        )
        return ", ".join(kinds) if kinds else "Off"

    @admin.display(description="Activity")
    def activity(self, obj: Customer) -> SafeString:
        return activity_table(Activity.objects.filter(customer=obj), more=f"?customer__id__exact={obj.pk}")

    @admin.display(description="Reconciliation")
    def reconciliation_help(self, obj: Customer) -> str:
        if obj.customer_id is not None:
            return "Linked to the provider."
        if obj.signup_sent_at is None and obj.user.is_active:
            return "The customer has not confirmed their email yet; the provider customer is created when they do."
        if obj.signup_conflict_at is None and obj.user.is_active:
            return (
                "The email is confirmed but the provider customer is not made yet (the provider was unavailable, "
                "or its answer was lost): the worker keeps trying. If it never succeeds, link it by hand as below."
            )
        return (
            "The provider's answer to this signup was lost. Look the email up at the "
            "provider: if the customer exists there, enter its customer ID above and save (the account is then "
            "activated); if not, use the list's action 'Discard unconfirmed signups' so they can sign up again."
        )

    def save_model(self, request: HttpRequest, obj: Customer, form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if change and "customer_id" in form.changed_data and obj.customer_id is not None and not obj.user.is_active:
            # Reconciled: the pending account can now sign in.
            obj.user.is_active = True
            obj.user.save(update_fields=["is_active"])


class ContactChangeStatusFilter(admin.SimpleListFilter):
    """Pending first: the list is staff's queue of changes to send the provider by hand."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [*ContactChange.Status.choices, ("all", "All")]

    def choices(self, changelist: Any) -> Iterator[Any]:
        # No "All" of Django's that would show the pending ones only: the queue is what the list shows unfiltered.
        current = self.value() or ContactChange.Status.PENDING
        for lookup, title in self.lookup_choices:
            yield {
                "selected": current == str(lookup),
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[ContactChange]) -> QuerySet[ContactChange]:
        value = self.value() or ContactChange.Status.PENDING
        return queryset if value == "all" else queryset.filter(status=value)


@admin.register(ContactChange)
class ContactChangeAdmin(ReadOnlyAdmin):
    """Contact changes the provider could not take through its interface: send each as shown, then mark it done
    (our copy of the contact changes then, and the customer's log says so)."""

    list_display = ("customer_email", "requested_at", "status", "requested_by", "done_at", "done_by")
    list_filter = (ContactChangeStatusFilter,)
    list_select_related = ("customer__user", "requested_by", "done_by")
    search_fields = ("^customer__user__email",)
    readonly_fields = ("customer", "status", "requested_at", "requested_by", "done_at", "done_by", "what_to_send")
    fields = readonly_fields
    actions = ("mark_done",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Read-only pages; the action needs the change permission, which staff who handle the queue hold.
        return obj is None and request.user.has_perm("accounts.change_contactchange")

    @admin.display(description="Customer", ordering="customer__user__email")
    def customer_email(self, obj: ContactChange) -> str:
        return obj.customer.user.email

    @admin.display(description="What to send the provider")
    def what_to_send(self, obj: ContactChange) -> SafeString:
        if obj.status != ContactChange.Status.PENDING:
            return format_html("<p>Nothing: {}.</p>", obj.get_status_display().lower())
        return format_html(
            "<p>Send the provider this customer's new contact (provider customer id {}), as its {} will take it once "
            "it ships; until then through the provider's partner support. Then select this change in the list and "
            "run <em>Mark done</em>.</p><pre>{}</pre>",
            obj.customer.customer_id or "none yet: the signup is unconfirmed",
            PROVIDER_ENDPOINT,
            provider_request(obj),
        )

    @admin.action(description="Mark done: sent to the provider (our copy changes now)", permissions=("change",))
    def mark_done(self, request: HttpRequest, queryset: QuerySet[ContactChange]) -> None:
        done = 0
        for change in queryset.filter(status=ContactChange.Status.PENDING):
            if contact_change_mark_done(change=change, staff=request.user):
                self.log_change(request, change, "Marked done: sent to the provider")
                done += 1
        self.message_user(
            request,
            f"{done} contact change(s) marked done (logged); the others selected were not pending.",
            messages.SUCCESS if done else messages.WARNING,
        )
