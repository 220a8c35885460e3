"""API keys: made by staff in the admin, the secret shown once, kept only as its SHA-256 (reseller_api/keys.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiKey(models.Model):
    """One staff system's key to /api/v1/. The key reads `rsk_<prefix>_<secret>`: the prefix is kept to find the row
    (and shown in the admin so staff can tell keys apart), the whole key only as its SHA-256 digest. A revoked key
    is kept, not deleted: the activity log names it, and its name must not be reused by another key."""

    class Scope(models.TextChoices):
        READ = "read", "Read"
        WRITE = "write", "Read and write"

    name = models.CharField(
        max_length=100,
        unique=True,
        help_text="Which system uses it (e.g. “Accounting sync”): the activity log says it.",
    )
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    secret_hash = models.CharField(max_length=64, editable=False)
    scope = models.CharField(
        max_length=8,
        choices=Scope.choices,
        default=Scope.READ,
        help_text="Read: every list and detail. Read and write: also switching a domain's auto-renew.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", editable=False
    )
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    # The whole key, on the one instance the admin just made (to show it once); never stored, never on a loaded row.
    issued_secret = ""

    class Meta:
        ordering = ["name"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} (rsk_{self.prefix}_…)"

    @property
    def can_write(self) -> bool:
        return self.scope == self.Scope.WRITE
