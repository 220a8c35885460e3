import json
import logging
import logging.config
from typing import Any

import pytest
from django.conf import settings


def _emitted(record: logging.LogRecord) -> dict:
    """The line our configured stdout handler writes for this record, parsed: it must be one JSON object."""
    logging_config: dict[str, Any] = settings.LOGGING
    config = logging_config["formatters"][logging_config["handlers"]["stdout"]["formatter"]]
    formatter = logging.config.DictConfigurator(logging_config).configure_formatter(dict(config))
    return json.loads(formatter.format(record))


@pytest.mark.django_db
def test_pages_carry_a_strict_content_security_policy(client):
    response = client.get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["X-Frame-Options"] == "DENY"


@pytest.mark.django_db
def test_pages_have_no_inline_scripts(client):
    body = client.get("/").content.decode()
    assert "<script>" not in body
    assert " on" + "click=" not in body


@pytest.mark.django_db
def test_each_request_is_logged_as_one_structured_line(client, caplog):
    caplog.set_level(logging.INFO, logger="storefront.requests")
    client.get("/healthz")
    lines = [_emitted(r) for r in caplog.records if r.name == "storefront.requests"]
    assert len(lines) == 1
    assert lines[0]["route"] == "/healthz"
    assert lines[0]["status"] == 200
    assert lines[0]["provider_calls"] == 0
    assert lines[0]["duration_ms"] >= 0


@pytest.mark.django_db(transaction=True)
def test_the_request_line_counts_provider_calls(client, caplog, sandbox_url, sandbox_partner):
    caplog.set_level(logging.INFO, logger="storefront.requests")
    client.get("/readyz")
    lines = [_emitted(r) for r in caplog.records if r.name == "storefront.requests"]
    line = next(line for line in lines if line["route"] == "/readyz")
    assert line["provider_calls"] == 2  # the main interface and MetaSearch
    assert line["provider_ms"] > 0


def test_every_log_line_is_json_with_level_logger_and_message(caplog):
    caplog.set_level(logging.WARNING, logger="storefront.gateway")
    logging.getLogger("storefront.gateway").warning("provider %s %s failed", "GET", "/api/v1/hello")
    line = _emitted(caplog.records[-1])
    assert line["level"] == "WARNING"
    assert line["logger"] == "storefront.gateway"
    assert line["message"] == "provider GET /api/v1/hello failed"
    assert line["time"]
