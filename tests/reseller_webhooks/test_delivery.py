"""A delivery goes over HTTP signed, and the receiver's check in docs/webhooks.md accepts it; a failure is retried
1, 2, 4 … minutes later, then hourly, and given up after a day; an endpoint failing for a day is switched off and
staff are told; nothing goes to a private address unless the setting allows it."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core import mail

from domains.alerts import staff_alerts
from reseller_webhooks.addresses import AddressRefused, url_check
from reseller_webhooks.events import DOMAIN_REGISTERED, PAYMENT_CAPTURED, webhook_event_emit
from reseller_webhooks.models import Delivery, Endpoint, Event
from reseller_webhooks.signing import HEADER, signature_verify
from reseller_webhooks.tasks import send_due_deliveries

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "webhooks.md"
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def documented_verify(page: Path = DOCS) -> Any:
    """The receiver's check exactly as docs/webhooks.md (or the README) prints it, run as a receiver would."""
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.DOTALL)
    [check] = [block for block in blocks if "def verify_signature" in block]
    namespace: dict[str, Any] = {}
    exec(check, namespace)
    return namespace["verify_signature"]


def _emit(key: str = "1") -> Event | None:
    return webhook_event_emit(
        PAYMENT_CAPTURED,
        key=key,
        data={"payment": {"id": 7, "customer_id": 3, "currency": "USD"}, "amount": "14.49", "domains": ["a.com"]},
    )


@pytest.mark.parametrize("page", [DOCS, ROOT / "README.md"], ids=["docs", "readme"])
def test_a_delivery_is_signed_and_the_documented_check_verifies_it(receiver, endpoint, page):
    verify = documented_verify(page)
    event = _emit()
    assert event is not None
    [received] = receiver.received
    header = received.headers[HEADER]
    assert re.fullmatch(r"t=\d+,v1=[0-9a-f]{64}", header)
    assert verify(endpoint.secret, received.body, header)
    assert signature_verify(secret=endpoint.secret, body=received.body, header=header)
    # Anything else is refused: another body, another secret, a signature replayed too late.
    assert not verify(endpoint.secret, received.body.replace(b"14.49", b"1.49"), header)
    assert not verify("whsec_another", received.body, header)
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=6)):
        assert not verify(endpoint.secret, received.body, header)

    body = json.loads(received.body)
    assert body == {
        "id": event.public_id,
        "type": "payment.captured",
        "created": int(event.created_at.timestamp()),
        "data": {"payment": {"id": 7, "customer_id": 3, "currency": "USD"}, "amount": "14.49", "domains": ["a.com"]},
    }
    assert received.headers["Content-Type"] == "application/json"
    delivery = Delivery.objects.get(event=event)
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 1, 200)


def test_an_event_goes_only_where_its_type_is_ticked_and_once_per_key(receiver, endpoint):
    Endpoint.objects.create(url=receiver.url + "/other", events=[DOMAIN_REGISTERED])
    _emit("same")
    _emit("same")  # the same change again (a replay): nothing new
    assert [each.path for each in receiver.received] == ["/hooks/store"]
    assert Event.objects.count() == 1


def test_nothing_is_kept_when_no_endpoint_takes_the_event(receiver):
    assert _emit() is None
    assert not Event.objects.exists() and receiver.received == []


def test_a_secret_is_never_sent(endpoint):
    with pytest.raises(ValueError, match="transfer_code"):
        webhook_event_emit(DOMAIN_REGISTERED, key="x", data={"domain": {"name": "a.com", "transfer_code": "abc"}})


def test_a_500_is_retried_with_backoff_and_given_up_after_a_day(receiver, endpoint):
    receiver.answers = [500] * 200
    with time_machine.travel(START, tick=False) as clock:
        event = _emit()
        delivery = Delivery.objects.get(event=event)
        assert (delivery.status, delivery.response_code, delivery.last_error) == ("pending", 500, "HTTP 500")
        clock.move_to(START + dt.timedelta(seconds=59))
        send_due_deliveries.enqueue()  # not due yet
        assert len(receiver.received) == 1

        attempts_at = [START]
        while True:
            delivery.refresh_from_db()
            if delivery.status != "pending":
                break
            assert delivery.next_attempt_at is not None
            clock.move_to(delivery.next_attempt_at)
            send_due_deliveries.enqueue()
            attempts_at.append(delivery.next_attempt_at)

    waits = [int((b - a).total_seconds() // 60) for a, b in itertools.pairwise(attempts_at)]
    assert waits[:8] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert set(waits[6:]) == {60}
    assert delivery.status == "given_up" and delivery.next_attempt_at is None
    assert attempts_at[-1] <= START + dt.timedelta(days=1) < attempts_at[-1] + dt.timedelta(hours=1)
    assert delivery.attempts == len(receiver.received) == len(attempts_at)
    # Every attempt was signed afresh, at its own time.
    stamps = [int(each.headers[HEADER].split(",")[0][2:]) for each in receiver.received]
    assert stamps == [int(moment.timestamp()) for moment in attempts_at]

    with time_machine.travel(START + dt.timedelta(days=2), tick=False):
        send_due_deliveries.enqueue()
    assert delivery.attempts == len(receiver.received)  # given up means no more attempts


def test_a_delivery_that_fails_then_succeeds_is_delivered_and_the_endpoint_recovers(receiver, endpoint):
    receiver.answers = [503]
    with time_machine.travel(START, tick=False) as clock:
        event = _emit()
        endpoint.refresh_from_db()
        assert endpoint.failing_since == START
        clock.move_to(START + dt.timedelta(minutes=1))
        send_due_deliveries.enqueue()
    delivery = Delivery.objects.get(event=event)
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 2, 200)
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None and endpoint.active


def test_an_endpoint_failing_for_a_day_is_switched_off_and_staff_are_told(receiver, endpoint, settings):
    settings.ADMINS = [("Ops", "ops@example.com")]
    receiver.answers = [500] * 10
    with time_machine.travel(START, tick=False) as clock:
        _emit("first")
        clock.move_to(START + dt.timedelta(hours=23))
        _emit("second")
        endpoint.refresh_from_db()
        assert endpoint.active  # failing, but not for a day yet
        clock.move_to(START + dt.timedelta(days=1, minutes=1))
        _emit("third")

    endpoint.refresh_from_db()
    assert not endpoint.active and endpoint.disabled_at == START + dt.timedelta(days=1, minutes=1)
    assert set(Delivery.objects.values_list("status", flat=True)) == {"given_up"}
    [alert] = [message for message in mail.outbox if "Webhook endpoint switched off" in message.subject]
    assert alert.to == ["ops@example.com"]
    assert endpoint.url in alert.body and "Send again" in alert.body and endpoint.secret not in alert.body
    # And on the admin's banner (domains/alerts.py) until it is switched on again.
    assert [alert.key for alert in staff_alerts() if alert.key == "webhooks"] == ["webhooks"]
    sent = len(receiver.received)
    assert _emit("fourth") is None  # nothing goes to an endpoint that is off
    assert len(receiver.received) == sent


def test_staff_send_a_given_up_delivery_again_from_the_log(receiver, endpoint, admin_client):
    receiver.answers = [500]
    event = _emit()
    delivery = Delivery.objects.get(event=event)
    Delivery.objects.filter(pk=delivery.pk).update(status="given_up", next_attempt_at=None)
    response = admin_client.post(
        "/admin/reseller_webhooks/delivery/", {"action": "send_again", "_selected_action": [delivery.pk]}
    )
    assert response.status_code == 302
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 2, 200)
    log = admin_client.get("/admin/reseller_webhooks/delivery/").content.decode()
    assert "payment.captured" in log and "Delivered" in log


def test_the_secret_is_shown_once_when_the_endpoint_is_added(receiver, admin_client):
    response = admin_client.post(
        "/admin/reseller_webhooks/endpoint/add/",
        {"url": receiver.url, "description": "CRM", "events": [DOMAIN_REGISTERED, PAYMENT_CAPTURED], "active": "on"},
    )
    endpoint = Endpoint.objects.get()
    assert endpoint.events == [DOMAIN_REGISTERED, PAYMENT_CAPTURED]
    assert response.status_code == 200 and endpoint.secret in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    page = admin_client.get(f"/admin/reseller_webhooks/endpoint/{endpoint.pk}/change/").content.decode()
    assert endpoint.secret not in page and endpoint.secret[-4:] in page


def test_the_add_form_names_no_secret_before_one_is_saved(admin_client):
    page = admin_client.get("/admin/reseller_webhooks/endpoint/add/").content.decode()
    assert "whsec_" not in page and "Made when you save" in page


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9000/hook",
        "https://127.0.0.1/hook",
        "https://10.0.0.5/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://localhost/hook",
        "http://203.0.113.9/hook",  # public enough, but plain http
        "https://user:pass@example.com/hook",
    ],
)
def test_without_the_setting_only_public_https_addresses_are_taken(settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    with pytest.raises(AddressRefused):
        url_check(url)


def test_a_delivery_to_a_private_address_is_refused_before_any_request(receiver, endpoint, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    event = _emit()
    delivery = Delivery.objects.get(event=event)
    assert delivery.status == "pending" and delivery.response_code is None
    assert delivery.last_error == "refused: the URL must start with https://"
    assert receiver.received == []
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    url_check("https://93.184.216.34/hook")  # a literal public address passes the form's check


def test_the_admin_refuses_an_address_the_store_does_not_send_to(admin_client, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    response = admin_client.post(
        "/admin/reseller_webhooks/endpoint/add/",
        {"url": "https://169.254.169.254/latest", "events": [DOMAIN_REGISTERED], "active": "on"},
    )
    assert response.status_code == 200 and "Not an address the store sends to" in response.content.decode()
    assert not Endpoint.objects.exists()


def test_ticking_active_again_starts_a_new_day_of_failures(endpoint, admin_client):
    Endpoint.objects.filter(pk=endpoint.pk).update(active=False, failing_since=START, disabled_at=START)
    response = admin_client.post(
        f"/admin/reseller_webhooks/endpoint/{endpoint.pk}/change/",
        {"url": endpoint.url, "events": endpoint.events, "active": "on", "description": ""},
    )
    assert response.status_code == 302
    endpoint.refresh_from_db()
    assert endpoint.active and endpoint.failing_since is None and endpoint.disabled_at is None


def test_the_admin_pages_open(receiver, endpoint, admin_client):
    event = _emit()
    assert event is not None
    for path in (
        "/admin/reseller_webhooks/endpoint/",
        "/admin/reseller_webhooks/endpoint/add/",
        f"/admin/reseller_webhooks/endpoint/{endpoint.pk}/change/",
        "/admin/reseller_webhooks/event/",
        f"/admin/reseller_webhooks/event/{event.pk}/change/",
        "/admin/reseller_webhooks/delivery/",
        f"/admin/reseller_webhooks/delivery/{Delivery.objects.get().pk}/change/",
        "/admin/demand/demandsubscription/",
        "/admin/demand/featurestate/",
        "/admin/",
    ):
        response = admin_client.get(path)
        assert response.status_code == 200, path
        assert endpoint.secret not in response.content.decode(), path


def test_renewing_the_secret_shows_the_new_one_once(endpoint, admin_client):
    old = endpoint.secret
    response = admin_client.post(
        "/admin/reseller_webhooks/endpoint/", {"action": "renew_secret", "_selected_action": [endpoint.pk]}
    )
    endpoint.refresh_from_db()
    assert endpoint.secret != old and endpoint.secret in response.content.decode()
