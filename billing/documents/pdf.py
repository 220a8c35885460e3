"""Receipts and credit notes as PDF files: the same document the page shows (its template partial, in the print
styles), rendered by WeasyPrint for the download link and for the attachment of the document's email.

Rendering fetches nothing from the network: the one fetcher answers the store's own static files (the stylesheets)
from disk and refuses every other address, so a document can neither wait on nor leak to an outside server. Fonts
are the machine's own (fontconfig; bin/setup installs Pango for WeasyPrint).
"""

from __future__ import annotations

import logging
import mimetypes
import threading
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext, pgettext
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from billing.documents.contents import credit_note_context, receipt_context
from billing.models import Document

logger = logging.getLogger(__name__)

PDF_CONTENT_TYPE = "application/pdf"
# One rendering at a time in a process: the web serves requests in threads (gunicorn gthread), and WeasyPrint does
# not promise that Pango and fontconfig underneath may be used from several at once. A receipt takes a fraction of a
# second, so the queue is short.
_RENDERING = threading.Lock()


def _static_path(name: str) -> Path | None:
    """A static file on disk: collected (production, hashed names) or found in the apps' folders (development)."""
    try:
        collected = Path(staticfiles_storage.path(name))
    except NotImplementedError:  # a storage without local files
        collected = None
    if collected is not None and collected.is_file():
        return collected
    found = finders.find(name)
    return Path(found) if isinstance(found, str) else None


class StaticFilesOnly(URLFetcher):
    """Answers the store's static files from disk; any other address is refused (logged, the PDF is made without)."""

    def __init__(self, *, base_url: str) -> None:
        super().__init__(fail_on_errors=False)
        # Where {% static %} points, as an absolute address: the site's /static/ (or STATIC_URL itself, a CDN's).
        self.static_prefix = urljoin(base_url, settings.STATIC_URL)

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        if not url.startswith(self.static_prefix):
            logger.warning("PDF rendering refused to fetch %s (static files only)", url[:200])
            raise ValueError(f"not a static file of the store: {url[:200]}")
        name = unquote(urlsplit(url).path.removeprefix(urlsplit(self.static_prefix).path))
        inside = name and not name.startswith("/") and ".." not in name.split("/")
        path = _static_path(name) if inside else None
        if path is None:
            raise ValueError(f"no such static file: {name}")
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(url, body=path.read_bytes(), headers={"Content-Type": content_type})


def _context(document: Document) -> tuple[str, dict[str, Any], str]:
    if document.is_credit_note:
        title = gettext("Credit note %(number)s") % {"number": document.number}
        return "billing/_credit_note_document.html", credit_note_context(document), title
    title = gettext("Receipt %(number)s") % {"number": document.number}
    return "billing/_receipt_document.html", receipt_context(document), title


def document_pdf(document: Document, *, variant: str | None = None) -> bytes:
    """The document as a PDF, in the active language (the caller chooses it: the customer's, for an email);
    `variant` is WeasyPrint's PDF variant (the e-invoice's is PDF/A-3b, billing/documents/einvoices.py)."""
    template, context, title = _context(document)
    html = render_to_string(
        "billing/document_pdf.html",
        {
            **context,
            "document_template": template,
            "title": title,
            "store_name": settings.STORE_NAME,
            "LANGUAGE_CODE": translation.get_language(),
        },
    )
    # Relative addresses ({% static %}) resolve against the site, which the fetcher answers from disk.
    base_url = settings.SITE_URL.rstrip("/") + "/"
    with _RENDERING:
        pdf = HTML(string=html, base_url=base_url, url_fetcher=StaticFilesOnly(base_url=base_url)).write_pdf(
            pdf_variant=variant
        )
    assert pdf is not None  # write_pdf returns bytes when given no target
    return pdf


def document_pdf_filename(document: Document) -> str:
    """`receipt-12.pdf`, `factura-rectificativa-3.pdf`: the kind in the active language, then the number."""
    # Translators: part of a file name; lower case, words joined by hyphens, no accents.
    kind = pgettext("file name", "credit-note") if document.is_credit_note else pgettext("file name", "receipt")
    return f"{kind}-{document.number}.pdf"
