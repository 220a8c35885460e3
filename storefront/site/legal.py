"""The legal pages (django.contrib.flatpages, edited by staff) and their versions.

A version is the first 16 hex digits of the SHA-256 of the page's title and content: flatpages keep no edit date,
and a hash changes exactly when the words do (an edit and its undo give the same version, as they should). The
text of each version a customer accepts is kept in LegalText.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.flatpages.models import FlatPage

from storefront.models import LegalText

TERMS_URL = "/legal/terms/"
PRIVACY_URL = "/legal/privacy/"
AGREEMENT_URL = "/legal/registration-agreement/"


def page_version(page: FlatPage) -> str:
    return hashlib.sha256(f"{page.title}\n{page.content}".encode()).hexdigest()[:16]


def legal_versions_current() -> str:
    """The terms' and the agreement's versions as one value ("terms:agreement"; empty parts if unpublished): the
    review page carries it, so a Buy pressed after staff edited either page is not taken as accepting the edit."""
    pages = {
        page.url: page for page in FlatPage.objects.filter(url__in=(TERMS_URL, AGREEMENT_URL), sites=settings.SITE_ID)
    }
    return ":".join(page_version(pages[url]) if url in pages else "" for url in (TERMS_URL, AGREEMENT_URL))


def legal_text_current(*, url: str) -> LegalText | None:
    """The published page at `url` as a kept version (stored the first time it is asked for); None if staff
    removed or unpublished the page."""
    page = FlatPage.objects.filter(url=url, sites=settings.SITE_ID).first()
    if page is None:
        return None
    text, _ = LegalText.objects.get_or_create(
        url=url, version=page_version(page), defaults={"title": page.title, "content": page.content}
    )
    return text
