"""The storefront's customer: their contact (as written and as sent to the provider), provider id and language; the
contact changes waiting for staff; the activity log."""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import models

from accounts.signup.spelling import SPELLED_FIELDS, name_search_form
from storefront.site import countries

# The contact as the provider holds it (signup's fields but the email and password), in the provider's order.
PROVIDER_CONTACT_FIELDS = ("name", "company", "address", "city", "state", "country", "zipcode", "country_code", "phone")


class Customer(models.Model):
    """A storefront customer and their link to the provider's customer account.

    The contact details are the ones the provider holds (sent at signup, or changed since); it uses them as
    registrant, admin, tech and billing contact of every domain, so checkout shows them for review. Name, company,
    address and city are kept as the customer writes them (any script) and, in `*_ascii`, as sent to the provider
    (English letters: its rule), see accounts/signup/spelling.py.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="customer")
    # The provider's id; null only while the provider's answer to signup is unknown (staff reconcile it).
    customer_id = models.PositiveBigIntegerField(unique=True, null=True, blank=True)
    name = models.CharField(max_length=255)
    company = models.CharField(max_length=255, blank=True)
    address = models.CharField(max_length=255)
    city = models.CharField(max_length=255)
    state = models.CharField(max_length=255)
    country = models.CharField(max_length=2)
    zipcode = models.CharField(max_length=32)
    country_code = models.CharField(max_length=4)
    phone = models.CharField(max_length=20)
    # What the provider is sent in place of name, company, address and city (they may hold any script).
    name_ascii = models.CharField(max_length=255)
    company_ascii = models.CharField(max_length=255, blank=True)
    address_ascii = models.CharField(max_length=255)
    city_ascii = models.CharField(max_length=255)
    # When the provider signup was sent and its answer not yet stored: set with `customer_id` empty means the
    # outcome is unknown (staff reconcile it). See accounts/signup/services.py.
    signup_sent_at = models.DateTimeField(null=True, blank=True)
    # Set when a signup whose answer was lost, sent again, found the email already at the provider: the first one
    # landed and its id is unknown (the provider has no lookup by email). Staff link it by hand; no more retries.
    signup_conflict_at = models.DateTimeField(null=True, blank=True)
    # The language the customer chose (settings.LANGUAGES; at signup, or with the language form): their pages once
    # signed in and the emails the worker sends later are in it (accounts/language.py). Empty: the site's default.
    language = models.CharField(max_length=16, blank=True, default="")
    # The currency prices are shown and charged in (pricing.currencies), chosen at signup from those the store
    # offers; changeable until the first purchase. Empty (customers from before currencies): the store's.
    currency = models.CharField(max_length=3, blank=True, default="")
    # Buying as a business, with its VAT/GST number (pricing/tax_numbers.py checked its format and check digits when
    # it was saved; `tax_number_check` says what the online check, where the store enables it, answered).
    is_business = models.BooleanField(default=False)
    tax_number = models.CharField(max_length=32, blank=True)
    tax_number_check = models.CharField(
        max_length=16,
        blank=True,
        choices=[("", "Format only"), ("valid", "Confirmed by VIES"), ("not_checked", "Not checked (VIES away)")],
    )
    tax_number_checked_at = models.DateTimeField(null=True, blank=True)
    # What the customer's e-invoices carry as the buyer's reference (BT-10: a purchase order number, a cost centre,
    # a public buyer's routing id), and whether they asked for e-invoices without buying as a business.
    buyer_reference = models.CharField(max_length=100, blank=True)
    wants_einvoices = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # The name and its English-letter spelling, casefolded and without accents ("josé muñoz jose munoz"): what the
    # admin's name search looks in, so "jose" or "munoz" finds José Muñoz on any database. Kept by save().
    name_search = models.CharField(max_length=512, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-created_at"]
        permissions = [("act_as_customer", "Can act as the customer (see their pages as they do)")]
        # The admin's list, newest first (the admin adds the id to make the order total).
        indexes = [models.Index(fields=["created_at", "id"], name="customer_created_idx")]

    def __str__(self) -> str:
        return f"{self.name} <{self.user.email}>"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.name_search = name_search_form(self.name, self.name_ascii)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"name", "name_ascii"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "name_search"}
        super().save(*args, **kwargs)

    @property
    def email(self) -> str:
        return self.user.email

    @property
    def currency_code(self) -> str:
        return self.currency or settings.STORE_CURRENCY

    @property
    def has_purchased(self) -> bool:
        """Whether any payment of theirs was authorised: their currency is fixed from then on."""
        return self.payments.filter(amount_authorised__gt=0).exists()

    @property
    def business_tax_number(self) -> str:
        """The VAT/GST number reverse charge may rest on: a business's number, else empty. Where the store checks
        numbers online (settings.TAX_VIES_CHECK, on in production), only one VIES confirmed: a checksum-valid number
        can be anyone's, and the VAT not collected on it would be owed by the store."""
        if not self.is_business:
            return ""
        if settings.TAX_VIES_CHECK and self.tax_number_check != "valid":
            return ""
        return self.tax_number

    @property
    def tax_number_unconfirmed(self) -> str:
        """A business's number VIES has not confirmed (it did not answer, or the number predates the check): VAT is
        charged meanwhile and refunded once it is confirmed. Empty when there is none such."""
        if self.is_business and self.tax_number and not self.business_tax_number:
            return self.tax_number
        return ""

    @property
    def country_name(self) -> str:
        found = countries.country(self.country)
        return found.display_name if found else self.country

    def provider_contact(self) -> dict[str, str]:
        """The contact as the provider is sent it: the ASCII forms in place of the written ones."""
        contact = {field: getattr(self, field) for field in PROVIDER_CONTACT_FIELDS}
        # A row made without its ASCII forms (bench data written straight to the table) falls back to the written one.
        spelled = {field: getattr(self, f"{field}_ascii") or contact[field] for field in SPELLED_FIELDS}
        return {**contact, **spelled}

    @property
    def records_spelling(self) -> str:
        """Name, company, address and city as the domains' records read them (English letters)."""
        spelled = self.provider_contact()
        return ", ".join(spelled[field] for field in SPELLED_FIELDS if spelled[field])

    @property
    def spelled_differently(self) -> bool:
        """Whether the records read otherwise than the customer writes (then pages show both)."""
        return any(getattr(self, f"{field}_ascii") != getattr(self, field) for field in SPELLED_FIELDS)

    def contact(self) -> dict[str, str]:
        """Every contact field we keep: the written forms, their ASCII forms and the rest."""
        names = [*PROVIDER_CONTACT_FIELDS, "name_ascii", "company_ascii", "address_ascii", "city_ascii"]
        return {field: getattr(self, field) for field in names}


class ContactChange(models.Model):
    """A change of a customer's contact details: sent through the gateway at once where the provider can take it
    (status `sent`), else waiting for staff to send it to the provider by hand (`pending`, then `done`).

    `details` holds every contact field as it will read after the change (Customer.contact()'s keys); the customer's
    own record changes only once the provider has the change, so checkout never shows what the registry does not
    hold. A customer has at most one pending change: asking again replaces it.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for staff to send it to the provider"
        DONE = "done", "Sent to the provider by staff"
        SENT = "sent", "Sent to the provider through its interface"

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="contact_changes")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    details = models.JSONField()
    requested_at = models.DateTimeField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    done_at = models.DateTimeField(null=True, blank=True)
    done_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["customer"], condition=models.Q(status="pending"), name="contact_change_one_pending"
            )
        ]
        indexes = [models.Index(fields=["status", "requested_at"], name="contact_change_status_at")]

    def __str__(self) -> str:
        return f"Contact change of {self.customer} ({self.get_status_display()})"


def customer_for_user(user: User | AnonymousUser) -> Customer | None:
    """The user's Customer (views ask it for the signed-in one); None for an anonymous visitor and for a user
    without one (staff may have none)."""
    if not user.is_authenticated:
        return None
    return Customer.objects.filter(user=user).first()


class Activity(models.Model):
    """One change that matters to a customer or to money, with who made it (accounts/staff/activity.py writes it; the
    services that make each change call it). Append-only: staff read it in the admin, customers on their account page.

    The domain and the payment are kept as plain values (the provider's order id and name, the payment's id), not
    foreign keys: a log must outlive our copy of an order (the listing drops expired ones) and must not tie
    `accounts` to the apps above it. Nothing secret is ever in `detail` (the writer refuses secret-looking keys).
    """

    class Actor(models.TextChoices):
        CUSTOMER = "customer", "Customer"
        STAFF = "staff", "Staff"
        STAFF_AS_CUSTOMER = "staff_as_customer", "Staff as customer"
        SYSTEM = "system", "System"

    at = models.DateTimeField(db_index=True)
    actor = models.CharField(max_length=20, choices=Actor.choices)
    # The person behind it (a staff member acting as the customer is the staff member), and their login as it read
    # then: the user may be renamed or deleted later.
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    actor_name = models.CharField(max_length=254, blank=True)
    customer = models.ForeignKey(Customer, on_delete=models.SET_NULL, null=True, blank=True, related_name="activity")
    action = models.CharField(max_length=40, db_index=True)
    order_id = models.PositiveBigIntegerField(null=True, blank=True, help_text="The provider's order id.")
    domain_name = models.CharField(max_length=255, blank=True)
    payment_id = models.PositiveBigIntegerField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    # The customer's data export (accounts/privacy.py) leaves out which staff member it was.
    EXPORT_HIDDEN = ("actor_user", "actor_name")

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = "activity"
        verbose_name_plural = "activity log"
        indexes = [
            models.Index(fields=["customer", "-at"], name="activity_customer_at"),
            models.Index(fields=["order_id", "-at"], name="activity_order_at"),
            models.Index(fields=["domain_name", "-at"], name="activity_domain_at"),
            models.Index(fields=["payment_id", "-at"], name="activity_payment_at"),
        ]

    def __str__(self) -> str:
        return f"{self.get_actor_display()}: {self.action} ({self.at:%Y-%m-%d %H:%M})"
