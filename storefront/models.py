"""The storefront's own records: scheduled runs, the development mailbox, shared counters, accepted legal texts
the email outbox, task leases and worker heartbeats, and what ties a request to its tasks and provider calls."""

from django.conf import settings
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
    mailbox page so a verification link can be followed. See storefront/background/mailbox.py."""

    to = models.TextField()
    subject = models.CharField(max_length=998)
    body = models.TextField()
    html = models.TextField(blank=True)
    # What was attached (a receipt's PDF), by name, type and size: the page says so; the file itself is not kept.
    attachments = models.JSONField(default=list, blank=True)
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


class OneTimeClaim(models.Model):
    """A claim that holds until it expires, taken at most once across every process (storefront/background/claims.py):
    what must survive the cache being away (an order's placement, a used two-factor code while Redis is down)."""

    key = models.CharField(max_length=250, primary_key=True)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key} until {self.expires_at:%Y-%m-%d %H:%M:%S}"


class TaskLease(models.Model):
    """A running task's lease (storefront/background/worker.py): its worker renews it while the task runs; one that
    lapsed means the worker died, and the task is run again. Keyed by django-tasks-db's result id."""

    task_id = models.UUIDField(primary_key=True)
    worker_id = models.CharField(max_length=64)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"task {self.task_id} held by {self.worker_id} until {self.expires_at:%H:%M:%S}"


class WorkerBeat(models.Model):
    """A task worker's heartbeat (storefront/background/worker.py): written every few seconds while it runs, so staff
    and the metrics see which workers are alive, which queues they serve and when one last took a task."""

    worker_id = models.CharField(max_length=64, primary_key=True)
    queues = models.CharField(max_length=200)  # the queues it takes, most urgent first, comma-separated
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)
    took_task_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-seen_at"]

    def __str__(self) -> str:
        return f"worker {self.worker_id} ({self.queues}) seen {self.seen_at:%H:%M:%S}"


class LegalText(models.Model):
    """One version of a legal page (terms, privacy, registration agreement) as customers were shown it.

    The pages themselves are flatpages that staff edit; a version is the SHA-256 of the page's title and content
    (storefront/site/legal.py), kept here with its text the first time a customer accepts it, so an acceptance can
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


class OutgoingEmail(models.Model):
    """One email the store sends, queued in the transaction of the change it reports (storefront/background/outbox.py)
    and sent by the worker, with retries, once; emails of one thread (a checkout, a payment) in the order they were
    queued.

    Most are rendered when queued (subject and bodies kept here). One that carries a secret link (address
    confirmation, password reset) is rendered only when sent, by a named renderer from `params` (ids only), so the
    link is never stored. Attachments (a receipt's PDF) are made when sent too, by named makers from their params:
    the worker renders them, never the request that queued the email.
    """

    # What the email is about, once: queueing the same key again adds nothing (a retried step, two workers).
    key = models.CharField(max_length=200, unique=True)
    thread = models.CharField(max_length=100, blank=True, db_index=True)
    to = models.JSONField(default=list)
    from_email = models.CharField(max_length=320, blank=True)
    subject = models.CharField(max_length=998, blank=True)
    body = models.TextField(blank=True)
    html = models.TextField(blank=True)
    renderer = models.CharField(max_length=100, blank=True)
    params = models.JSONField(default=dict, blank=True)
    # [{"maker": name, "params": {...}}, ...]: each made into a file when the email is sent
    # (storefront/background/outbox.py).
    attachments = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Not sent before this (a failed attempt waits a growing while before the next).
    send_after = models.DateTimeField(db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Nothing to send any more (its renderer found nothing to say, e.g. the address was confirmed meanwhile).
    dropped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["sent_at", "dropped_at", "send_after"], name="outbox_due")]

    def __str__(self) -> str:
        return f"{self.key} → {', '.join(self.to)}"

    @property
    def pending(self) -> bool:
        return self.sent_at is None and self.dropped_at is None


class TaskRequest(models.Model):
    """The request a task was enqueued from (storefront/requests/request_ids.py): its worker runs it under that
    request's id, so the task's log lines, provider calls and error reports name it. Keyed by django-tasks' result
    id."""

    task_id = models.CharField(max_length=64, primary_key=True)
    request_id = models.CharField(max_length=128, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"task {self.task_id} of request {self.request_id}"


class ProviderCall(models.Model):
    """One call to the provider (storefront/observability/provider_calls.py): our request id beside the provider's own,
    so staff go from a customer's reference to the provider's support with the id they ask for. Kept
    PROVIDER_CALL_LOG_DAYS days. The path never holds a secret (queries and bodies are not kept)."""

    request_id = models.CharField("our request id", max_length=128, db_index=True)
    provider_request_id = models.CharField(max_length=128, blank=True, db_index=True)
    service = models.CharField(max_length=32)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=255)
    # None: no answer (a timeout, a refused connection).
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="customer",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.method} {self.path} {self.status or 'no answer'} ({self.request_id})"
