"""RequestGuardMiddleware is switched on: methods no page takes get 405, a multipart body 415 unread."""

from __future__ import annotations

import pytest
from django.test import Client
from django.test.client import MULTIPART_CONTENT

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("method", ["put", "delete", "patch", "trace", "options"])
def test_a_method_no_page_takes_is_refused(client, method):
    response = getattr(client, method)("/")

    assert response.status_code == 405
    assert set(response["Allow"].split(", ")) == {"GET", "HEAD", "POST"}


def test_a_multipart_post_is_refused_unread(client, monkeypatch):
    read = []
    from django.http import multipartparser

    original = multipartparser.MultiPartParser.parse
    monkeypatch.setattr(multipartparser.MultiPartParser, "parse", lambda self: read.append(1) or original(self))

    response = Client().post(
        "/cart/add/", {"domain_name": "upload.com", "file": "x" * 1000}, content_type=MULTIPART_CONTENT
    )

    assert response.status_code == 415
    assert read == []  # the body was never parsed


def test_an_ordinary_form_post_still_works(client):
    response = client.post("/cart/add/", {"domain_name": ""})

    assert response.status_code != 415
    assert response.status_code != 405
