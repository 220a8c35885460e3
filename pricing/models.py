"""The provider's cost table, the retail rules staff set over it, the store's currency rate, and each sync run."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from pricing.money import ending_problem


class Operation(models.TextChoices):
    REGISTER = "register", "Register"
    RENEW = "renew", "Renew"
    TRANSFER = "transfer", "Transfer"
    RESTORE = "restore", "Restore"
    # WHOIS privacy, one price a year for every TLD (the provider's `privacy_protection`): a rule for it names this
    # operation; rules for every operation price domains, not privacy.
    PRIVACY = "privacy", "WHOIS privacy"


# What the provider prices per TLD and term (`privacy_protection` is one annual price, kept on each sync).
TLD_OPERATIONS = (Operation.REGISTER, Operation.RENEW, Operation.TRANSFER, Operation.RESTORE)


class Tld(models.Model):
    """A TLD the provider has priced for us. Never deleted: one the provider stops pricing is marked not sold."""

    name = models.CharField(max_length=63, unique=True, help_text="Without the leading dot, e.g. com.")
    sold = models.BooleanField(default=True, help_text="Off when the provider's price list no longer has it.")
    first_seen_at = models.DateTimeField(auto_now_add=True)
    dropped_at = models.DateTimeField(null=True, blank=True)
    # From the provider's TLD catalogue (one of its two price-list shapes); the other shape says neither.
    privacy_available = models.BooleanField(
        null=True, blank=True, help_text="Whether the provider offers WHOIS privacy here; empty: not said (offered)."
    )
    restrictions = models.TextField(
        blank=True, help_text="The registry's requirements (e.g. a nexus for .us), in the provider's words."
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "TLD"

    def __str__(self) -> str:
        return f".{self.name}"


class CostPrice(models.Model):
    """What the provider charges us for one operation on one TLD for one term (a total for the term)."""

    tld = models.ForeignKey(Tld, on_delete=models.CASCADE, related_name="costs")
    operation = models.CharField(max_length=16, choices=Operation.choices)
    years = models.PositiveSmallIntegerField()
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3, default="USD")
    # Off when the provider's latest list no longer quotes this term; the row stays as history.
    current = models.BooleanField(default=True)
    fetched_at = models.DateTimeField(help_text="When the provider last confirmed this price.")
    changed_at = models.DateTimeField(help_text="When the amount last changed.")

    class Meta:
        ordering = ["tld__name", "operation", "years"]
        constraints = [models.UniqueConstraint(fields=["tld", "operation", "years"], name="one_cost_per_tld_term")]

    def __str__(self) -> str:
        return f".{self.tld.name} {self.operation} {self.years}y: {self.amount} {self.currency}"


class RuleKind(models.TextChoices):
    PERCENT = "percent", "Markup in percent of cost"
    FIXED_AMOUNT = "fixed_amount", "Fixed markup per year"
    FIXED_PRICE = "fixed_price", "Fixed retail price per year"


class PriceRule(models.Model):
    """Staff's override of the default markup, for one TLD and/or one operation.

    The most specific rule wins: TLD and operation, then TLD, then operation, then a rule for everything;
    with none, the environment's default (PRICE_MARKUP_*). Amounts are in the store's currency. Markups are
    rounded as PRICE_ROUNDING says; a fixed price is charged exactly as set.
    """

    tld = models.CharField(
        max_length=63, blank=True, help_text="Without the leading dot (e.g. com); empty for every TLD."
    )
    operation = models.CharField(
        max_length=16, choices=Operation.choices, blank=True, help_text="Empty for every operation."
    )
    kind = models.CharField(max_length=16, choices=RuleKind.choices)
    percent = models.DecimalField(
        max_digits=7, decimal_places=2, default=Decimal(0), help_text="Markup in percent of the cost, e.g. 20."
    )
    amount = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal(0))],
        help_text="Fixed markup per year, or fixed retail price per year, in the store's currency.",
    )
    note = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["tld", "operation"]
        constraints = [models.UniqueConstraint(fields=["tld", "operation"], name="one_rule_per_tld_operation")]

    def __str__(self) -> str:
        where = f".{self.tld}" if self.tld else "every TLD"
        what = self.get_operation_display().lower() if self.operation else "every operation"
        return f"{where}, {what}: {self.describe()}"

    def describe(self) -> str:
        if self.kind == RuleKind.PERCENT:
            return f"cost + {self.percent}%"
        if self.kind == RuleKind.FIXED_AMOUNT:
            return f"cost + {self.amount}/yr"
        return f"{self.amount}/yr"

    @staticmethod
    def tld_normal(tld: str) -> str:
        return tld.strip().lower().lstrip(".")

    def percent_too_low(self) -> bool:
        return self.kind == RuleKind.PERCENT and self.percent <= Decimal(-100)

    def clean(self) -> None:
        self.tld = self.tld_normal(self.tld)
        if self.percent_too_low():
            raise ValidationError({"percent": "A percentage must be above -100."})
        # Whether it sells below today's cost needs the price book: the admin's form asks (pricing/admin.py).


# The largest rate either table takes: past it a price no longer fits the money columns (12 digits), and no currency
# the store can sell in (Stripe's) is anywhere near it (the Indonesian rupiah is some 16,000 to the dollar). A rate
# typed with its digits doubled is refused where it is entered, not found at Buy as a failed write.
RATE_MAX = Decimal(100_000)
RATE_VALIDATORS = [MinValueValidator(Decimal("0.000001")), MaxValueValidator(RATE_MAX)]


class ExchangeRate(models.Model):
    """How many units of the store's currency one unit of the provider's currency (USD) costs us."""

    provider_currency = models.CharField(max_length=3, default="USD")
    store_currency = models.CharField(max_length=3)
    rate = models.DecimalField(max_digits=18, decimal_places=6, validators=RATE_VALIDATORS)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["provider_currency", "store_currency"], name="one_rate_per_pair"),
            models.CheckConstraint(condition=Q(rate__gt=0), name="rate_positive"),
            models.CheckConstraint(condition=Q(rate__lte=RATE_MAX), name="rate_at_most_max"),
        ]

    def __str__(self) -> str:
        return f"1 {self.provider_currency} = {self.rate} {self.store_currency}"

    def clean(self) -> None:
        self.provider_currency = self.provider_currency.strip().upper()
        self.store_currency = self.store_currency.strip().upper()


class PriceSync(models.Model):
    """One run of the cost-table refresh, kept so staff see when the table was last confirmed and what failed."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    ok = models.BooleanField()
    message = models.TextField(blank=True)
    tld_count = models.PositiveIntegerField(default=0)
    changed_count = models.PositiveIntegerField(default=0)
    dropped = models.TextField(blank=True, help_text="TLDs that stopped being sold in this run.")
    # The provider's annual WHOIS privacy cost in this run's price list (USD); empty when it quoted none. The latest
    # successful run's figure is what privacy costs us now (pricing.quotes.privacy_quote).
    privacy_cost = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="WHOIS privacy per year, in USD."
    )

    class Meta:
        ordering = ["-started_at"]
        verbose_name = "price sync"

    def __str__(self) -> str:
        return f"{self.started_at:%Y-%m-%d %H:%M} {'ok' if self.ok else 'failed'}"


class PromotionKind(models.TextChoices):
    PERCENT = "percent", "Percentage off the line's price"
    FIXED = "fixed", "Fixed amount off each line"


class PromotionScope(models.TextChoices):
    REGISTER = "register", "First-year registrations"
    RENEW = "renew", "Renewals"
    BOTH = "both", "Registrations and renewals"


class Promotion(models.Model):
    """A code customers enter (cart, renewal confirmation) for a discount on the lines it applies to.

    The discount is taken off each line it touches (a registration or a renewal, whatever its term): a percentage of
    the line's price, or a fixed amount per line. It never takes a line below its cost unless staff mark the code a
    loss leader, and then only for `loss_leader_cap` lines (pricing.promotions). Limits count lines (one domain
    registered or renewed with the code is one redemption); a line that is not delivered gives its redemption back.
    """

    code = models.CharField(max_length=40, unique=True, help_text="What customers type; kept in capitals.")
    description = models.CharField(max_length=200, blank=True, help_text="For staff: what the offer is for.")
    kind = models.CharField(max_length=16, choices=PromotionKind.choices, default=PromotionKind.PERCENT)
    value = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        validators=[MinValueValidator(Decimal("0.01"))],
        help_text="Percent off (e.g. 20), or the amount off each line in the store's currency.",
    )
    applies_to = models.CharField(max_length=16, choices=PromotionScope.choices, default=PromotionScope.REGISTER)
    tlds = models.CharField(
        max_length=500, blank=True, help_text="TLDs without the dot, separated by commas (e.g. com, io); empty for all."
    )
    starts_at = models.DateTimeField(help_text="Valid from.")
    ends_at = models.DateTimeField(null=True, blank=True, help_text="Valid until; empty for no end.")
    max_redemptions = models.PositiveIntegerField(
        null=True, blank=True, help_text="How many lines in all may use it; empty for no limit."
    )
    max_per_customer = models.PositiveIntegerField(
        null=True, blank=True, help_text="How many lines one customer may use it on; empty for no limit."
    )
    active = models.BooleanField(default=True)
    loss_leader = models.BooleanField(
        default=False, help_text="Allow selling below cost with this code (only up to the cap below)."
    )
    loss_leader_cap = models.PositiveIntegerField(
        null=True, blank=True, help_text="How many lines may be sold below cost with this code (loss leaders only)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_at", "code"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__isnull=True) | Q(ends_at__gt=models.F("starts_at")), name="promotion_window"
            )
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def tld_list(self) -> list[str]:
        return [t.strip().lower().lstrip(".") for t in self.tlds.split(",") if t.strip()]

    def clean(self) -> None:
        self.code = self.code.strip().upper()
        self.tlds = ", ".join(self.tld_list)
        if self.kind == PromotionKind.PERCENT and self.value is not None and self.value > 100:
            raise ValidationError({"value": "A percentage cannot be above 100."})
        if self.ends_at and self.starts_at and self.ends_at <= self.starts_at:
            raise ValidationError({"ends_at": "The end must be after the start."})
        if self.loss_leader and not self.loss_leader_cap:
            raise ValidationError(
                {"loss_leader_cap": "A loss leader needs a cap: how many lines may be sold below cost."}
            )


class PromotionRedemption(models.Model):
    """One line bought with a promotion, taken atomically at Buy (pricing.promotions.redemptions_take).

    Unique per checkout and line, so a repeated Buy of the same checkout takes nothing twice; `released_at` is set
    when the line was not delivered (registration failed, payment released or abandoned): it no longer counts.
    """

    promotion = models.ForeignKey(Promotion, on_delete=models.PROTECT, related_name="redemptions")
    # The customer who used it (accounts.Customer's id: pricing imports no other app).
    customer_id = models.PositiveBigIntegerField(db_index=True)
    checkout_id = models.UUIDField(db_index=True)
    reference = models.CharField(max_length=255, help_text="The line: its domain name.")
    operation = models.CharField(max_length=16, choices=Operation.choices)
    list_amount = models.DecimalField(max_digits=12, decimal_places=2)
    discount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    below_cost = models.BooleanField(default=False, help_text="Sold below cost (a loss leader's line).")
    created_at = models.DateTimeField(auto_now_add=True)
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["promotion", "checkout_id", "reference"], name="one_redemption_per_checkout_line"
            )
        ]

    def __str__(self) -> str:
        return f"{self.promotion.code}: {self.reference}"


class Currency(models.Model):
    """A currency the store sells in besides its own (STORE_CURRENCY), at a rate staff set or the feed updates.

    `rate` is how many units of this currency one unit of the store's currency buys; prices are converted at it
    and then rounded up to the currency's price ending (pricing.currencies). A currency is offered to customers
    only while enabled and with a rate.
    """

    code = models.CharField(max_length=3, unique=True, help_text="ISO 4217, e.g. EUR.")
    enabled = models.BooleanField(default=False, help_text="Offered to customers at signup and on the account page.")
    rate = models.DecimalField(
        max_digits=18,
        decimal_places=6,
        null=True,
        blank=True,
        validators=RATE_VALIDATORS,
        help_text="Units of this currency per one unit of the store's currency.",
    )
    rate_from_feed = models.BooleanField(
        default=False, help_text="The rate feed (CURRENCY_FEED_URL) updates the rate; off: the rate set here stays."
    )
    rate_set_at = models.DateTimeField(null=True, blank=True)
    rate_set_by = models.CharField(max_length=150, blank=True, help_text="The staff member, or the feed.")
    price_ending = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.99"),
        validators=[MinValueValidator(Decimal(0))],
        help_text="Prices are rounded up to end in this, e.g. 0.99; 0 for whole units (JPY, ISK).",
    )
    # When staff were told that the feed has not updated this rate for too long (once per stale spell).
    stale_alerted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["code"]
        verbose_name_plural = "currencies"
        constraints = [
            models.CheckConstraint(condition=Q(rate__gt=0) | Q(rate__isnull=True), name="currency_rate_positive"),
            models.CheckConstraint(
                condition=Q(rate__lte=RATE_MAX) | Q(rate__isnull=True), name="currency_rate_at_most_max"
            ),
        ]

    def __str__(self) -> str:
        return self.code

    def clean(self) -> None:
        self.code = self.code.strip().upper()
        problem = ending_problem(code=self.code, ending=self.price_ending)
        if problem:
            raise ValidationError({"price_ending": problem})
        if self.enabled and self.rate is None:
            raise ValidationError({"rate": "Set a rate before enabling the currency."})


class TaxRegistration(models.Model):
    """The store's own tax registration (one row): printed on every receipt and credit note, and the seller's side of
    the reverse-charge rule (pricing/tax.py). Without one the store charges no tax."""

    country = models.CharField(max_length=2, help_text="ISO 3166 code of the country the store is registered in.")
    tax_id = models.CharField(max_length=32, help_text="The store's VAT/GST number as printed, e.g. DE136695976.")
    name = models.CharField(max_length=255, help_text="The registered name, as on the registration.")
    oss = models.BooleanField(
        "registered for the EU's One-Stop Shop (OSS)",
        default=False,
        help_text="Consumers in every EU member state are charged their country's standard VAT rate, from the EU's "
        "published rates (the eu-vat-rates-data package); a tax rate you add here for a country wins over it.",
    )

    class Meta:
        verbose_name = "tax registration"

    def __str__(self) -> str:
        return f"{self.name} ({self.tax_id})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.country = self.country.upper()
        super().save(*args, **kwargs)


class TaxRate(models.Model):
    """The tax charged to customers in one country (or one region of it: a US state, a Canadian province). A region's
    rate wins over its country's; a country with no rate is charged no tax."""

    country = models.CharField(max_length=2, help_text="ISO 3166 code of the customer's country.")
    region = models.CharField(
        max_length=64,
        blank=True,
        help_text="Empty for the whole country; else the state or province by its name, as customers' contact details "
        "hold it (e.g. New York, Ontario).",
    )
    rate = models.DecimalField(
        max_digits=6, decimal_places=3, validators=[MinValueValidator(Decimal(0))], help_text="Percent, e.g. 21."
    )
    label = models.CharField(max_length=32, default="VAT", help_text="What the tax is called: VAT, GST, Sales tax.")

    class Meta:
        ordering = ["country", "region"]
        constraints = [models.UniqueConstraint(fields=["country", "region"], name="one_tax_rate_per_place")]

    def __str__(self) -> str:
        place = f"{self.country}-{self.region}" if self.region else self.country
        return f"{place}: {self.label} {self.rate}%"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.country = self.country.upper()
        self.region = self.region.strip().upper()
        super().save(*args, **kwargs)
