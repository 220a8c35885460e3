"""The sandbox provider's state: partners, their keys and catalogue, customers, orders, DNS and faults.

Everything a request can change lives here, so the sandbox survives restarts like the real provider would.
Customers and orders belong to one environment (test or live), like keys: a test key never sees live data.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from sandbox.keys import key_environment

TEST = "test"
LIVE = "live"
ENVIRONMENTS = [(TEST, "Test (sandbox)"), (LIVE, "Live (production)")]

MAX_ACTIVE_KEYS = 2


def hash_secret(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


PRICE_LIST_OPENAPI = "openapi"
PRICE_LIST_CATALOGUE = "catalogue"


class Partner(models.Model):
    name = models.CharField(max_length=200, unique=True)
    is_active = models.BooleanField(default=True, help_text="An inactive partner's keys get 403 Forbidden.")
    test_balance = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    live_balance = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    currency = models.CharField(max_length=3, default="USD", editable=False)
    # The provider's documented limits per key (rate-limits.mdx); a partner manager can raise them, a test lower them.
    search_rate_limit = models.PositiveIntegerField(
        default=50,
        validators=[MinValueValidator(1)],
        help_text="Requests per second per key for availability, suggestions and MetaSearch (bursts: twice, 5 s).",
    )
    rate_limit = models.PositiveIntegerField(
        default=10,
        validators=[MinValueValidator(1)],
        help_text="Requests per second per key for every other endpoint (bursts: twice, for 5 s).",
    )
    # The provider documents two shapes for `GET /api/v1/pricing` (the OpenAPI's and the TLD-catalogue page's);
    # which one the live service sends is not settled, so a client is tried against either.
    price_list_shape = models.CharField(
        max_length=16,
        choices=[(PRICE_LIST_OPENAPI, "OpenAPI: dot<tld> map"), (PRICE_LIST_CATALOGUE, "TLD catalogue: tlds list")],
        default=PRICE_LIST_OPENAPI,
        help_text="Which documented shape the pricing endpoint answers in.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def balance_field(self, environment: str) -> str:
        return "live_balance" if environment == LIVE else "test_balance"

    def tlds(self) -> list[CatalogueTld]:
        return list(self.catalogue.all())


class ApiKeyQuerySet(models.QuerySet):
    def active(self, now: dt.datetime | None = None) -> ApiKeyQuerySet:
        now = now or timezone.now()
        return self.filter(revoked_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


class ApiKey(models.Model):
    """A partner's bearer key. Only its SHA-256 and a short display prefix are kept, never the key itself."""

    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="keys")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS, default=TEST)
    label = models.CharField(max_length=100, blank=True)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=16, editable=False, help_text="The first characters, to recognise a key.")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["partner", "environment", "created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.partner})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > timezone.now())

    def set_plaintext(self, plaintext: str) -> None:
        environment = key_environment(plaintext)
        if environment == "unknown":
            raise ValidationError("A key starts with test_ or live_ (optionally nk_test_ / nk_live_).")
        self.environment = environment
        self.key_hash = hash_secret(plaintext)
        self.prefix = plaintext[:12]

    def clean(self) -> None:
        if self.is_active and self.partner_id:
            others = ApiKey.objects.active().filter(partner_id=self.partner_id, environment=self.environment)
            if self.pk:
                others = others.exclude(pk=self.pk)
            if others.count() >= MAX_ACTIVE_KEYS:
                raise ValidationError(
                    f"A partner can hold at most {MAX_ACTIVE_KEYS} active {self.environment} keys; revoke one first."
                )

    @classmethod
    def issue(cls, *, partner: Partner, environment: str = TEST, label: str = "", plaintext: str = "") -> tuple:
        """Create a key and return (key, plaintext). The plaintext is not stored: show it once."""
        plaintext = plaintext or f"{environment}_{secrets.token_urlsafe(24)}"
        key = cls(partner=partner, label=label)
        key.set_plaintext(plaintext)
        key.full_clean(exclude=["key_hash", "prefix"])
        key.save()
        return key, plaintext

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])


class CatalogueTld(models.Model):
    """One TLD the partner sells, in the partner's order: the first is the fallback of search."""

    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="catalogue")
    tld = models.CharField(max_length=63, help_text="Without the leading dot.")
    position = models.PositiveIntegerField(default=0)
    register_price = models.DecimalField(max_digits=10, decimal_places=2)
    renew_price = models.DecimalField(max_digits=10, decimal_places=2)
    privacy_price = models.DecimalField(max_digits=10, decimal_places=2, default=Decimal("0.00"))
    slashed_price = models.DecimalField(
        max_digits=10, decimal_places=2, null=True, blank=True, help_text="The struck-through 'was' price."
    )
    free_first_year = models.BooleanField(default=False)
    min_term = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(10)], help_text="Minimum term in years."
    )
    privacy_available = models.BooleanField(default=True, help_text="Whether WHOIS privacy is offered here.")
    # The registry's requirements, field name to what it asks (e.g. {"nexus_category": "..."} for .us). The register
    # call has no field to carry them, so a restricted TLD refuses every registration naming them (a 422).
    restrictions = models.JSONField(null=True, blank=True, help_text='e.g. {"nexus_category": "US nexus category"}')

    class Meta:
        ordering = ["partner", "position", "tld"]
        constraints = [models.UniqueConstraint(fields=["partner", "tld"], name="sandbox_unique_partner_tld")]
        verbose_name = "catalogue TLD"

    def __str__(self) -> str:
        return f".{self.tld}"

    def save(self, *args, **kwargs) -> None:
        self.tld = self.tld.strip().lower().lstrip(".")
        super().save(*args, **kwargs)

    @property
    def first_year_price(self) -> Decimal:
        return Decimal("0.00") if self.free_first_year else self.register_price

    def register_cost(self, years: int) -> Decimal:
        return self.first_year_price + self.renew_price * (years - 1)

    def renew_cost(self, years: int) -> Decimal:
        return self.renew_price * years


class ReservedName(models.Model):
    """A name the partner's catalogue lists as taken, or as premium (shown with a price, never registrable)."""

    TAKEN = "taken"
    PREMIUM = "premium"

    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="reserved_names")
    domain_name = models.CharField(max_length=255)
    kind = models.CharField(max_length=7, choices=[(TAKEN, "Taken"), (PREMIUM, "Premium")])
    premium_price = models.DecimalField(
        max_digits=10, decimal_places=2, null=True, blank=True, help_text="First-year price of a premium name."
    )

    class Meta:
        ordering = ["partner", "domain_name"]
        constraints = [models.UniqueConstraint(fields=["partner", "domain_name"], name="sandbox_unique_reserved_name")]

    def __str__(self) -> str:
        return f"{self.domain_name} ({self.kind})"

    def save(self, *args, **kwargs) -> None:
        self.domain_name = self.domain_name.strip().lower().rstrip(".")
        super().save(*args, **kwargs)


def _new_customer_id() -> int:
    return secrets.randbelow(90_000_000) + 10_000_000


def _new_order_id() -> int:
    return secrets.randbelow(900_000_000) + 100_000_000


# The contact fields of a customer (signup) and of a domain's registrant, admin, tech and billing contacts.
DETAIL_FIELDS = ("name", "company", "address", "city", "state", "country", "zipcode", "country_code", "phone", "email")


class ContactDetails(models.Model):
    """A person's contact details, held by the same rules as a signup (sandbox/signup.py checks them)."""

    name = models.CharField(max_length=255)
    company = models.CharField(max_length=255, blank=True)
    address = models.CharField(max_length=255)
    city = models.CharField(max_length=255)
    state = models.CharField(max_length=255)
    country = models.CharField(max_length=2)
    zipcode = models.CharField(max_length=32)
    country_code = models.CharField(max_length=3)
    phone = models.CharField(max_length=15)
    email = models.CharField(max_length=254)

    class Meta:
        abstract = True

    def details(self) -> dict[str, str]:
        return {field: getattr(self, field) for field in DETAIL_FIELDS}


class Customer(ContactDetails):
    customer_id = models.BigIntegerField(unique=True, default=_new_customer_id, editable=False)
    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="customers")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS, default=TEST)
    password = models.CharField(max_length=128, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Emails are unique across every partner of an environment, whatever their case.
            models.UniqueConstraint(Lower("email"), "environment", name="sandbox_unique_customer_email")
        ]

    def __str__(self) -> str:
        return f"{self.email} ({self.customer_id})"


class AutoLoginToken(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="login_tokens")
    token_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"token for {self.customer.email}"


class DomainOrder(models.Model):
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_DELETE = "Pending Delete Restorable"
    EXPIRED = "Expired"
    FAILED = "Failed"
    DELETED = "Deleted"
    STATUSES = [(s, s) for s in (ACTIVE, SUSPENDED, PENDING_DELETE, EXPIRED, FAILED, DELETED)]
    # Listed by the order listing, and holding the name at the registry (so nobody else can register it).
    LISTED = (ACTIVE, SUSPENDED, PENDING_DELETE, EXPIRED)

    order_id = models.BigIntegerField(unique=True, default=_new_order_id, editable=False)
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="orders")
    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="orders")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS, default=TEST)
    domain_name = models.CharField(max_length=255)
    status = models.CharField(max_length=32, choices=STATUSES, default=ACTIVE)
    failure_reason = models.CharField(max_length=255, blank=True)
    duration = models.PositiveSmallIntegerField(default=1)
    amount = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    expires_at = models.DateTimeField(null=True, blank=True)
    transfer_code = models.CharField(max_length=32, blank=True)
    dns_active = models.BooleanField(default=False)
    # Registrars lock a new domain against transfers out; the owner unlocks it to move it elsewhere.
    transfer_lock = models.BooleanField(default=True)
    privacy_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="Until when WHOIS privacy is paid for (empty: never bought)."
    )
    privacy_enabled = models.BooleanField(
        default=False, help_text="Switched on by its owner; it hides the contacts only while it is paid for."
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Two concurrent registrations of one name: the database lets only one through.
            models.UniqueConstraint(
                "environment",
                "domain_name",
                condition=Q(status__in=["Active", "Suspended", "Pending Delete Restorable", "Expired"]),
                name="sandbox_one_registration_per_domain",
            )
        ]
        verbose_name = "domain order"

    def __str__(self) -> str:
        return f"{self.domain_name} ({self.order_id})"

    @property
    def expiry_timestamp(self) -> int:
        return int(self.expires_at.timestamp()) if self.expires_at else 0

    def listed_status(self, now: dt.datetime | None = None) -> str:
        now = now or timezone.now()
        if self.expires_at and self.expires_at < now:
            return self.EXPIRED
        return self.status

    def privacy_purchased(self, now: dt.datetime | None = None) -> bool:
        return self.privacy_expires_at is not None and self.privacy_expires_at > (now or timezone.now())


class Contact(ContactDetails):
    """A registrant, admin, tech or billing contact set through `POST /api/v1/contacts`, for one domain order or
    as a customer's default for all their domains. Where none is set, the customer's own details stand (the
    contract: signup details are every contact of every domain registered under the customer)."""

    REGISTRANT = "registrant"
    ADMIN = "admin"
    TECH = "tech"
    BILLING = "billing"
    ROLES = (REGISTRANT, ADMIN, TECH, BILLING)

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="contacts")
    order = models.ForeignKey(
        DomainOrder,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="contacts",
        help_text="Empty: the customer's default for every domain without a contact of its own.",
    )
    role = models.CharField(max_length=10, choices=[(role, role.title()) for role in ROLES])
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["customer", "order", "role"]
        constraints = [
            models.UniqueConstraint(
                fields=["order", "role"], condition=Q(order__isnull=False), name="sandbox_one_contact_per_order_role"
            ),
            models.UniqueConstraint(
                fields=["customer", "role"],
                condition=Q(order__isnull=True),
                name="sandbox_one_default_contact_per_role",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role} {self.name} <{self.email}>"


class DnsRecord(models.Model):
    TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "SOA"]
    READ_ONLY_TYPES = ("NS", "SOA")

    order = models.ForeignKey(DomainOrder, on_delete=models.CASCADE, related_name="dns_records")
    type = models.CharField(max_length=5, choices=[(t, t) for t in TYPES])
    host = models.CharField(max_length=253, default="@")
    value = models.TextField()
    time_to_live = models.PositiveIntegerField(default=3600)
    priority = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, default="Active")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["order", "type", "created_at", "id"]
        verbose_name = "DNS record"

    def __str__(self) -> str:
        return f"{self.type} {self.host} {self.value[:40]}"


class Fault(models.Model):
    """Misbehaviour switched on for one partner, for tests and demos. `scope` limits it to endpoint groups."""

    GROUPS = (
        "hello",
        "customers",
        "availability",
        "metasearch",
        "register",
        "orders",
        "renew",
        "transfers",
        "dns",
        "domains",
        "contacts",
        "privacy",
    )

    partner = models.OneToOneField(Partner, on_delete=models.CASCADE, related_name="fault")
    latency_ms = models.PositiveIntegerField(default=0, help_text="Wait this long before answering.")
    error_rate = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Fraction of requests answered 500, spread evenly (0.5: every second one; 1: all).",
    )
    hang_seconds = models.FloatField(default=0.0, help_text="Wait this long before answering (past timeouts).")
    hang_after_commit = models.BooleanField(
        default=False, help_text="Do the work first, then hang: a provider that acts and drops the answer."
    )
    malformed = models.BooleanField(default=False, help_text="Answer 200 with a body that is not JSON.")
    availability_down = models.BooleanField(default=False, help_text="The availability backend is down.")
    rate_limited = models.BooleanField(default=False, help_text="Answer 429 with Retry-After.")
    error_200_message = models.CharField(
        max_length=255,
        blank=True,
        help_text="When set, answer 200 with this refusal ({status: ERROR, message}; MetaSearch {error}), work undone.",
    )
    ai_latency_ms = models.PositiveIntegerField(
        default=0,
        help_text="MetaSearch with aisuggest=true waits this long on a cache miss (the provider's demo: 8000-17000).",
    )
    scope = models.CharField(
        max_length=200,
        blank=True,
        help_text="Comma-separated endpoint groups the faults apply to (empty: all). Groups: " + ", ".join(GROUPS),
    )
    requests_seen = models.PositiveIntegerField(default=0, editable=False)

    def __str__(self) -> str:
        return f"faults for {self.partner}"

    def clean(self) -> None:
        unknown = set(self.scope_groups()) - set(self.GROUPS)
        if unknown:
            raise ValidationError({"scope": f"Unknown groups: {', '.join(sorted(unknown))}"})

    def scope_groups(self) -> list[str]:
        return [part.strip() for part in self.scope.split(",") if part.strip()]

    def applies_to(self, groups: tuple[str, ...]) -> bool:
        wanted = self.scope_groups()
        return not wanted or any(group in wanted for group in groups)


class RateBucket(models.Model):
    """One key's request budget for one class of endpoints, kept in the database so every thread and process
    of the sandbox shares it. See sandbox/ratelimit.py for the arithmetic."""

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="rate_buckets")
    group = models.CharField(max_length=8)
    tokens = models.FloatField()
    refilled_at = models.FloatField(help_text="Unix time of the last refill.")
    second = models.BigIntegerField(default=0, help_text="The Unix second `used` counts.")
    used = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "group"], name="sandbox_unique_rate_bucket")]

    def __str__(self) -> str:
        return f"{self.group} budget of {self.key}"
