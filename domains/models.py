"""The domains app's records: our copy of each provider order, registrations, renewals, reminders, order syncs and
legal acceptances."""

from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import Customer
from pricing.money import Money


class Order(models.Model):
    """Our copy of a provider domain order, refreshed from the order listing.

    It answers ownership checks (which customer an order_id belongs to) without a provider call, and gives
    staff a view in the admin. The provider's listing stays the source of truth.
    """

    class Status(models.TextChoices):
        # The provider's own words, shown as they are.
        ACTIVE = "Active", "Active"
        SUSPENDED = "Suspended", "Suspended"
        PENDING_DELETE_RESTORABLE = "Pending Delete Restorable", "Pending Delete Restorable"
        EXPIRED = "Expired", "Expired"

    order_id = models.PositiveBigIntegerField(unique=True)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="orders")
    domain_name = models.CharField(max_length=255, db_index=True)
    status = models.CharField(max_length=32, choices=Status.choices, default=Status.ACTIVE)
    expiry_timestamp = models.BigIntegerField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    dns_active = models.BooleanField(default=False)
    last_synced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Renewed by the storefront AUTO_RENEW_DAYS_BEFORE days before expiry, on the customer's saved card
    # (domains/auto_renew.py). A failed attempt switches it off (the reminders take over) and says why.
    auto_renew = models.BooleanField(default=False, db_index=True)
    auto_renew_failed_at = models.DateTimeField(null=True, blank=True)
    auto_renew_failure = models.CharField(max_length=200, blank=True)
    # The payment for this domain (its registration or a renewal) was refunded, by staff or in Stripe's dashboard, or
    # lost to a dispute: the customer's pages say so, it is not renewed here, and staff see it listed (the provider
    # has no delete call yet).
    refunded_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # A dispute of its payment is open (cleared when it closes).
    disputed_at = models.DateTimeField(null=True, blank=True)
    # WHOIS privacy as the provider's last answer about it left it (domains/orders/privacy.py): paid for until
    # `privacy_expires_at` (empty: never bought), shown while `privacy_enabled`.
    privacy_enabled = models.BooleanField(default=False)
    privacy_expires_at = models.DateTimeField(null=True, blank=True)
    # The registrant's email check (domains/orders/verification.py): the provider emails a link after each
    # registration and suspends the domain if it is not confirmed within 14 days. Started when this store registered
    # it (empty for domains it did not); confirmed when the customer tells us they clicked the link.
    verification_started_at = models.DateTimeField(null=True, blank=True)
    verification_confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["expires_at", "domain_name"]
        indexes = [
            # The admin's default order and its expiry filters, and the sync's orders near expiry.
            models.Index(fields=["expires_at", "domain_name"], name="order_expiry_idx"),
            # A customer's domains by name (the order list, search rows saying "Yours").
            models.Index(fields=["customer", "domain_name"], name="order_customer_name_idx"),
        ]

    def __str__(self) -> str:
        return self.domain_name


class RegistrationStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    REGISTERED = "registered", "Registered"
    FAILED = "failed", "Failed"
    UNKNOWN = "unknown", "Could not confirm"  # the provider's answer was lost; reconciled from the order listing
    # Was registered, but the owner's order listing no longer has it (it expired and was deleted): the name is
    # free again, so the row must stop holding it.
    RELEASED = "released", "Released (no longer held)"


# The statuses in which a domain is (or may be) taken by a registration: at most one per domain name (the
# constraint below). Here, not in the class, so that its Meta can use it too.
LIVE_REGISTRATION_STATUSES = (RegistrationStatus.PENDING, RegistrationStatus.REGISTERED, RegistrationStatus.UNKNOWN)


class RegistrationFailureKind(models.TextChoices):
    """Why a line was not registered, in plain words (the confirmation page and email say more)."""

    UNAVAILABLE = "unavailable", "Not available"
    PREMIUM = "premium", "Premium"
    BILLING = "billing", "Billing failed"
    MINIMUM_TERM = "minimum_term", "Minimum term"
    INVALID_CUSTOMER = "invalid_customer", "Invalid customer"
    # The answer was lost and the order listing does not have the domain.
    NOT_REGISTERED = "not_registered", "Not registered (reconciled)"
    # The provider turned the request away unprocessed (unreachable, busy, key refused).
    SERVICE = "service", "Service unavailable"
    ALREADY_YOURS = "already_yours", "Already the customer's"
    # Another checkout of the same customer is registering it right now.
    IN_PROGRESS = "in_progress", "In another checkout"
    # The TLD's registry requirements (a nexus for .us) were missing; `Registration.requirements` names them.
    RESTRICTED = "restricted", "TLD requirements missing"
    # Any other refusal; the provider's message says why.
    REJECTED = "rejected", "Other refusal"


class Registration(models.Model):
    """One cart line being bought: recorded before the provider is called, updated with the outcome."""

    Status = RegistrationStatus
    FailureKind = RegistrationFailureKind
    LIVE_STATUSES = LIVE_REGISTRATION_STATUSES
    # Not settled yet: still being placed, or its answer was lost (reconciling settles it).
    UNSETTLED_STATUSES = (RegistrationStatus.PENDING, RegistrationStatus.UNKNOWN)

    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="registrations")
    domain_name = models.CharField(max_length=80)
    duration = models.PositiveSmallIntegerField()
    # The sale as it was made: the retail price the customer was quoted (total_price, for the whole term, in
    # `currency`), what it cost us then in the same currency (cost_price), the provider's own figure in its
    # currency (provider_cost, USD) and the rule that set the price. Kept, so margins stay true after prices move.
    currency = models.CharField(max_length=3, blank=True)
    register_price = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="Retail price of the registration term."
    )
    renew_price = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="Retail price of a later one-year renewal."
    )
    total_price = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="Retail total charged, in the currency."
    )
    cost_price = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="Our cost at the time of sale, same currency."
    )
    provider_cost = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="The provider's charge, in USD."
    )
    price_rule = models.CharField(max_length=200, blank=True, help_text="The pricing rule that set the price.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    failure_kind = models.CharField(max_length=32, blank=True, choices=FailureKind.choices)
    provider_message = models.TextField(blank=True)
    requirements = models.CharField(
        max_length=300, blank=True, help_text="What the TLD's registry needed that was missing (the refusal's fields)."
    )
    order = models.ForeignKey(Order, on_delete=models.SET_NULL, null=True, blank=True, related_name="registrations")
    provider_order_id = models.PositiveBigIntegerField(null=True, blank=True)
    # Groups the lines placed by one checkout, for its confirmation page.
    checkout_id = models.UUIDField(db_index=True)
    # When the email reporting this line's outcome was queued (domains/checkout/emails.py, in the same
    # transaction); empty while untold, so a line settled later gets its follow-up.
    emailed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        # The admin's list, newest first, and its filter by outcome.
        indexes = [
            models.Index(fields=["created_at", "id"], name="registration_created_idx"),
            models.Index(fields=["status", "created_at", "id"], name="registration_status_idx"),
            models.Index(fields=["provider_order_id"], name="registration_provider_idx"),
        ]
        constraints = [
            # Enforced by the database, so double clicks, two tabs and concurrent requests register once.
            models.UniqueConstraint(
                fields=["domain_name"],
                condition=Q(status__in=LIVE_REGISTRATION_STATUSES),
                name="one_live_registration_per_domain",
            ),
            # A repeated or concurrent POST of one checkout reuses its line instead of adding another.
            models.UniqueConstraint(fields=["checkout_id", "domain_name"], name="one_line_per_checkout_domain"),
        ]

    def __str__(self) -> str:
        return f"{self.domain_name} ({self.get_status_display()})"

    @property
    def retail(self) -> Money | None:
        return Money(self.total_price, self.currency) if self.total_price is not None and self.currency else None

    @property
    def cost(self) -> Money | None:
        return Money(self.cost_price, self.currency) if self.cost_price is not None and self.currency else None

    @property
    def margin(self) -> Money | None:
        retail, cost = self.retail, self.cost
        return retail - cost if retail is not None and cost is not None else None


class RenewalReminder(models.Model):
    """One renewal reminder email: at most one per order, expiry date and offset (the constraint makes a
    second run of the reminder job a no-op). A renewal moves the expiry, so the next term gets its own."""

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="renewal_reminders")
    expires_at = models.DateTimeField()
    # Days before expiry this reminder is for (negative: after expiry), from RENEWAL_REMINDER_DAYS.
    days_before = models.SmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["order", "expires_at", "days_before"], name="one_reminder_per_expiry_offset"
            )
        ]

    def __str__(self) -> str:
        return f"{self.order.domain_name}: {self.days_before} days before {self.expires_at:%Y-%m-%d}"


class CustomerSync(models.Model):
    """When the worker last refreshed a customer's orders from the provider's listing, and how that went."""

    customer = models.OneToOneField(Customer, on_delete=models.CASCADE, related_name="order_sync")
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    # Consecutive failed syncs; reset by a success. Staff are alerted past a few.
    failures = models.PositiveIntegerField(default=0)
    # The gateway's error class (never its text: no provider detail needs to reach staff mail).
    last_error = models.CharField(max_length=64, blank=True)
    # When the whole listing is next due to be read (domains/orders/sync.py); empty: never read yet.
    walk_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # The listing page the next walk starts from: 1, or where a long listing's walk stopped.
    walk_page = models.PositiveIntegerField(default=1)
    walk_started_at = models.DateTimeField(null=True, blank=True)
    # total_orders as the listing last said: how many pages the next walk will read.
    listed_orders = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"order sync of {self.customer_id}"


class Renewal(models.Model):
    """One renewal asked for on the domain page: recorded (claimed) before the provider is called.

    The form's one-time token is unique, so the same form sent again (double click, Back, a replay, another
    worker process) finds this row instead of renewing again, whatever the cache holds. A renewal that certainly
    did not happen (FAILED) may be claimed again by the same form; one whose answer was lost (UNKNOWN) never is.
    """

    PENDING = "pending"
    RENEWED = "renewed"
    FAILED = "failed"
    UNKNOWN = "unknown"
    # Shown to the customer on the domain page, so in their language (issue 30: no English on Spanish pages).
    STATUS_CHOICES = [
        (PENDING, _("Being sent")),
        (RENEWED, _("Renewed")),
        (FAILED, _("Not renewed")),
        (UNKNOWN, _("Could not confirm")),
    ]

    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="renewals")
    # Kept when our copy of the order goes (the listing dropped it): the record of money spent stays.
    order = models.ForeignKey(Order, on_delete=models.SET_NULL, null=True, blank=True, related_name="renewals")
    provider_order_id = models.PositiveBigIntegerField()
    domain_name = models.CharField(max_length=255)
    duration = models.PositiveSmallIntegerField()
    price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    # What the reseller pays the provider for it (the cost table at the time, in `currency`): the margin.
    cost_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    # The expiry the customer's page showed (and the provider was asked to renew from), and the one after.
    old_expires_at = models.DateTimeField(null=True, blank=True)
    new_expires_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=PENDING, db_index=True)
    # Why it was not renewed, in plain words for staff (expiry_changed, refused, unavailable, ...).
    failure_kind = models.CharField(max_length=32, blank=True)
    provider_message = models.TextField(blank=True)
    token = models.UUIDField(unique=True)
    # Its payment given back in full (refunded, or lost to a dispute): the renewal stays made at the provider (no
    # call undoes it), the record says its money went back. The domain itself is not marked refunded.
    refunded_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["created_at", "id"], name="renewal_created_idx"),
            models.Index(fields=["provider_order_id"], name="renewal_provider_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.domain_name} +{self.duration}y ({self.get_status_display()})"

    @property
    def retail(self) -> Money | None:
        """What the customer paid, for the money filter (None while the price is unknown)."""
        return Money(self.price, self.currency) if self.price is not None and self.currency else None

    @property
    def margin(self) -> Decimal | None:
        if self.price is None or self.cost_price is None:
            return None
        return self.price - self.cost_price


class PrivacyPurchase(models.Model):
    """WHOIS privacy bought for a domain, paid with an order or on the domain page: recorded (claimed) before the
    provider is asked, under the payment's checkout id, so a line delivered twice buys privacy once."""

    PENDING = "pending"
    PURCHASED = "purchased"
    FAILED = "failed"
    UNKNOWN = "unknown"
    STATUS_CHOICES = [
        (PENDING, "Being sent"),
        (PURCHASED, "Purchased"),
        (FAILED, "Not purchased"),
        (UNKNOWN, "Could not confirm"),
    ]

    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="privacy_purchases")
    order = models.ForeignKey(Order, on_delete=models.SET_NULL, null=True, blank=True, related_name="privacy_purchases")
    provider_order_id = models.PositiveBigIntegerField()
    domain_name = models.CharField(max_length=255)
    years = models.PositiveSmallIntegerField()
    price = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    cost_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    # Until when privacy was paid for before this purchase, and after: how a lost answer is settled.
    expires_before = models.DateTimeField(null=True, blank=True)
    expires_after = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=PENDING, db_index=True)
    provider_message = models.TextField(blank=True)
    checkout_id = models.UUIDField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["checkout_id", "provider_order_id"], name="one_privacy_per_checkout_order")
        ]

    def __str__(self) -> str:
        return f"{self.domain_name} privacy +{self.years}y ({self.get_status_display()})"


class LegalAcceptance(models.Model):
    """A customer's acceptance, at checkout, of the terms of service and the domain registration agreement: which
    versions (storefront.LegalText: the exact text) and when, for the checkout it bought (the checkout id is the
    order's key, as on Registration and Payment). Recorded before anything is charged or registered."""

    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="legal_acceptances")
    checkout_id = models.UUIDField(db_index=True)
    terms = models.ForeignKey("storefront.LegalText", on_delete=models.PROTECT, related_name="+")
    agreement = models.ForeignKey("storefront.LegalText", on_delete=models.PROTECT, related_name="+")
    accepted_at = models.DateTimeField()
    ip = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-accepted_at"]
        constraints = [
            models.UniqueConstraint(fields=["customer", "checkout_id"], name="one_legal_acceptance_per_checkout")
        ]

    def __str__(self) -> str:
        return f"{self.checkout_id} accepted {self.accepted_at:%Y-%m-%d %H:%M}"


class RenewalPriceNotice(models.Model):
    """A customer told that a domain of theirs on auto-renew will renew at a higher price (domains/renewal_prices.py):
    one per rise, that is per order, currency, price last paid and new price (the constraint makes a second run of
    the reminder job a no-op). Auto-renew charges the new price only once its notice is NOTICE_DAYS old; prices are a
    year's, retail, in the customer's currency."""

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="price_notices")
    currency = models.CharField(max_length=3)
    # What the customer last paid for a year of it (a renewal, or the renewal price quoted when they registered it).
    old_price = models.DecimalField(max_digits=12, decimal_places=2)
    new_price = models.DecimalField(max_digits=12, decimal_places=2)
    notified_at = models.DateTimeField()

    class Meta:
        ordering = ["-notified_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["order", "currency", "old_price", "new_price"], name="one_price_notice_per_rise"
            )
        ]

    def __str__(self) -> str:
        return f"{self.order.domain_name}: {self.old_price} → {self.new_price} {self.currency}"

    @property
    def old(self) -> Money:
        return Money(self.old_price, self.currency)

    @property
    def new(self) -> Money:
        return Money(self.new_price, self.currency)
