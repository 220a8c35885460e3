from django.db import models


class ScheduledRun(models.Model):
    """One period of one periodic job, enqueued once: the unique constraint lets any number of scheduler
    processes tick at once while only the first insert for a period enqueues the job."""

    job = models.CharField(max_length=64)
    period_start = models.DateTimeField()
    task_result_id = models.CharField(max_length=64, blank=True)
    enqueued_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-period_start"]
        constraints = [models.UniqueConstraint(fields=["job", "period_start"], name="one_run_per_job_period")]

    def __str__(self) -> str:
        return f"{self.job} @ {self.period_start:%Y-%m-%d %H:%M}"


class MailboxMessage(models.Model):
    """An email the storefront sent while running without a mail server (development only): shown on the
    mailbox page so a verification link can be followed. See storefront/mailbox.py."""

    to = models.TextField()
    subject = models.CharField(max_length=998)
    body = models.TextField()
    html = models.TextField(blank=True)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-sent_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.subject} → {self.to}"


class SharedCounter(models.Model):
    """A counter every process increments atomically (rate limits, sign-in throttles), used when the cache is
    the database cache: its `incr` is a read then a write, so concurrent workers would lose counts."""

    key = models.CharField(max_length=250, primary_key=True)
    count = models.PositiveBigIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key} = {self.count}"


class LegalText(models.Model):
    """One version of a legal page (terms, privacy, registration agreement) as customers were shown it.

    The pages themselves are flatpages that staff edit; a version is the SHA-256 of the page's title and content
    (storefront/legal.py), kept here with its text the first time a customer accepts it, so an acceptance can
    always be matched with the exact words accepted, however the page was edited since.
    """

    url = models.CharField(max_length=100)
    version = models.CharField(max_length=16)
    title = models.CharField(max_length=200)
    content = models.TextField()
    first_accepted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["url", "-first_accepted_at"]
        constraints = [models.UniqueConstraint(fields=["url", "version"], name="one_legal_text_per_version")]

    def __str__(self) -> str:
        return f"{self.url} {self.version}"
