"""Errors reach a person: a view's and a task's exception reach the mail to ADMINS and the error tracker (a local
capture of its endpoint), scrubbed of secrets and personal data, with the request id; the mail is throttled."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from django.core import mail
from django.core.management import call_command
from django.http import HttpRequest, HttpResponse
from django.test import override_settings
from django.urls import path
from django_tasks import task

from storefront.observability.error_reports import ThrottledAdminEmailHandler, event_scrub, scrub
from storefront.queues import QUEUES
from storefront.requests import request_ids
from tests.storefront.error_tracker import TrackerCapture

ADMINS = [("Ops", "ops@example.com")]
PASSWORD = "hunter2-Secret!"
CARD = "4242424242424242"
TRANSFER_CODE = "Xy7-epp-Zq9"


def exploding_view(request: HttpRequest) -> HttpResponse:
    password = request.POST.get("password")  # noqa: F841 - a local variable the tracker must not see
    transfer_code = TRANSFER_CODE  # noqa: F841
    raise RuntimeError(f"charge failed for ada@example.org, card {CARD}")


def enqueueing_view(request: HttpRequest) -> HttpResponse:
    failing_task.enqueue(customer_email="ada@example.org")
    return HttpResponse("queued")


@task()
def failing_task(*, customer_email: str) -> None:
    auth_code = TRANSFER_CODE  # noqa: F841
    raise ValueError(f"the task failed for {customer_email}, card {CARD}")


urlpatterns = [path("boom/", exploding_view), path("enqueue/", enqueueing_view)]
handler500 = "storefront.views.server_error"


@pytest.fixture
def tracker() -> Iterator[TrackerCapture]:
    with TrackerCapture().running() as capture:
        yield capture


def assert_nothing_secret(text: str) -> None:
    for secret in (PASSWORD, CARD, TRANSFER_CODE, "ada@example.org"):
        assert secret not in text


@pytest.mark.django_db
@pytest.mark.urls(__name__)
@override_settings(ADMINS=ADMINS)
def test_a_views_exception_reaches_admins_and_the_tracker_scrubbed(client, tracker):
    client.raise_request_exception = False
    response = client.post("/boom/?token=abc123secret&page=2", {"password": PASSWORD, "domain": "example.com"})

    assert response.status_code == 500
    reference = response["X-Request-ID"]
    page = response.content.decode()
    assert "quote this reference" in page and reference in page

    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == ["ops@example.com"]
    assert "RuntimeError" in sent.body and f"Request id: {reference}" in sent.body
    assert_nothing_secret(sent.subject + sent.body)

    (event,) = tracker.flushed().events()
    assert event["exception"]["values"][-1]["type"] == "RuntimeError"
    assert event["tags"]["request_id"] == reference
    assert event["environment"] == "test" and event["release"] == "deadbeef"
    assert "abc123secret" not in tracker.raw and "page=2" in tracker.raw
    assert_nothing_secret(tracker.raw)


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls(__name__)
@override_settings(
    ADMINS=ADMINS, TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}
)
def test_a_tasks_exception_reaches_admins_and_the_tracker_under_its_requests_id(client, tracker):
    response = client.post("/enqueue/")
    reference = response["X-Request-ID"]
    assert mail.outbox == []

    call_command("run_worker", "--batch", "--no-startup-delay", "-v", "0")

    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert "failing_task failed" in sent.subject and "ValueError" in sent.subject
    assert "ValueError" in sent.body and f"Request id: {reference}" in sent.body
    assert_nothing_secret(sent.subject + sent.body)

    events = [e for e in tracker.flushed().events() if e.get("exception")]
    assert [e["exception"]["values"][-1]["type"] for e in events] == ["ValueError"]
    assert events[0]["tags"]["request_id"] == reference
    assert_nothing_secret(tracker.raw)


@pytest.mark.django_db
@override_settings(ADMINS=ADMINS)
def test_an_error_storm_sends_a_handful_of_mails():
    logger = logging.getLogger("django.request")
    for number in range(40):
        try:
            raise RuntimeError(f"storm {number}")
        except RuntimeError:
            logger.error("Internal Server Error: /storm/", exc_info=True)
    assert len(mail.outbox) == ThrottledAdminEmailHandler.MAX
    assert "held back" in mail.outbox[-1].body
    assert "held back" not in mail.outbox[0].body


@override_settings(ADMINS=[])
def test_without_admins_nothing_is_mailed():
    try:
        raise RuntimeError("nobody to tell")
    except RuntimeError:
        logging.getLogger("django.request").error("Internal Server Error: /x/", exc_info=True)
    assert mail.outbox == []


def test_the_scrubber_removes_keys_tokens_codes_cards_passwords_and_addresses():
    event = {
        "request": {
            "headers": {"Authorization": "Bearer sk_live_abcdef123456", "User-Agent": "browser"},
            "cookies": {"sessionid": "s3ss10n"},
            "query_string": "q=example&api_key=k3y",
            "data": {"password": PASSWORD, "address": "1 Main St", "zipcode": "12345", "duration": "2"},
        },
        "extra": {
            "auth_code": TRANSFER_CODE,
            "transfer-code": TRANSFER_CODE,
            "card": {"number": CARD, "exp_month": 12},
            "note": f"paid with {CARD[:4]} {CARD[4:8]} {CARD[8:12]} {CARD[12:]} by ada@example.org",
            "provider_key": "live_0123456789abcdef",
            "status_code": 500,
            "country_code": "ES",
        },
    }
    text = repr(event_scrub(event, {}))
    for secret in ("sk_live_abcdef123456", "s3ss10n", "k3y", PASSWORD, "1 Main St", "12345", TRANSFER_CODE, CARD,
                   "4242 4242", "ada@example.org", "live_0123456789abcdef"):  # fmt: skip
        assert secret not in text
    cleaned = scrub(event)
    assert cleaned["extra"]["status_code"] == 500 and cleaned["extra"]["country_code"] == "ES"
    assert cleaned["request"]["data"]["duration"] == "2"
    assert cleaned["request"]["headers"]["User-Agent"] == "browser"


def test_an_event_names_the_request_id():
    with request_ids.bound("ref-0123456789"):
        event = event_scrub({"message": "boom"}, {})
    assert event["tags"]["request_id"] == "ref-0123456789"


@override_settings(RESELLER_API_KEY="plainprovider0key0without0prefix")
def test_the_provider_key_never_leaves_whatever_its_shape():
    event = {
        "exception": {
            "values": [
                {"stacktrace": {"frames": [{"vars": {"prepared": "{'X': 'plainprovider0key0without0prefix'}"}}]}}
            ]
        }
    }
    assert "plainprovider0key0without0prefix" not in repr(event_scrub(event, {}))
