"""The storefront's customer: the contact sent to the provider at signup, its provider id, its language."""

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import models

from storefront import countries


class Customer(models.Model):
    """A storefront customer and their link to the provider's customer account.

    The contact details are the ones sent at signup; the provider uses them as registrant, admin, tech and
    billing contact of every domain, so checkout shows them for review.
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
    # When the provider signup was sent and its answer not yet stored: set with `customer_id` empty means the
    # outcome is unknown (staff reconcile it). See accounts/services.py.
    signup_sent_at = models.DateTimeField(null=True, blank=True)
    # Set when a signup whose answer was lost, sent again, found the email already at the provider: the first one
    # landed and its id is unknown (the provider has no lookup by email). Staff link it by hand; no more retries.
    signup_conflict_at = models.DateTimeField(null=True, blank=True)
    # The language the customer last used the site in (settings.LANGUAGES): emails sent later by the worker
    # (order outcomes, renewal reminders) are written in it. Empty: the site's default.
    language = models.CharField(max_length=16, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        permissions = [("act_as_customer", "Can act as the customer (see their pages as they do)")]
        # The admin's list, newest first (the admin adds the id to make the order total).
        indexes = [models.Index(fields=["created_at", "id"], name="customer_created_idx")]

    def __str__(self) -> str:
        return f"{self.name} <{self.user.email}>"

    @property
    def email(self) -> str:
        return self.user.email

    @property
    def country_name(self) -> str:
        found = countries.country(self.country)
        return found.display_name if found else self.country


def customer_for_user(user: User | AnonymousUser) -> Customer | None:
    """The user's Customer (views ask it for the signed-in one); None for an anonymous visitor and for a user
    without one (staff may have none)."""
    if not user.is_authenticated:
        return None
    return Customer.objects.filter(user=user).first()


class Activity(models.Model):
    """One change that matters to a customer or to money, with who made it (accounts/activity.py writes it; the
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
