"""The legal pages' starter text, naming the store (STORE_NAME, STORE_LEGAL_NAME, its address, SUPPORT_EMAIL).

Written once into flatpages, which staff then rewrite in the admin (Flat pages): never overwritten. A page that
is missing (a new database, a deleted page) is written again at the next migrate (storefront/apps.py): checkout
cannot record an acceptance without the terms and the agreement, so to change a page, edit it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.html import escape, linebreaks


def starter_pages() -> list[tuple[str, str, str]]:
    store = escape(settings.STORE_NAME)
    seller = escape(settings.STORE_LEGAL_NAME)
    address = linebreaks(escape(settings.STORE_LEGAL_ADDRESS)) if settings.STORE_LEGAL_ADDRESS else ""
    contact = (
        f'by email at <a href="mailto:{escape(settings.SUPPORT_EMAIL)}">{escape(settings.SUPPORT_EMAIL)}</a>'
        if settings.SUPPORT_EMAIL
        else "through the contact details at the foot of every page"
    )
    who = f"<p>{store} is operated by {seller}.</p>{address}"
    terms = f"""<p>These terms apply when you use {store} to search for, buy, renew and manage domain names.</p>
{who}
<h2>Your account</h2>
<p>You give accurate contact details and keep them up to date: the registry publishes or keeps them as the
registrant of your domains. Keep your password secret; you are responsible for what is done with your account.</p>
<h2>Orders and payment</h2>
<p>Prices are shown before you buy, per year, with the currency. Your payment is authorised first; a domain is
registered only once it is, and you are charged only for the domains that were registered. A domain is yours
for the term you paid for and must be renewed before it expires to keep it.</p>
<h2>Use of domains</h2>
<p>You do not use your domains for anything unlawful, for spam, phishing or malware, or to infringe the rights of
others. We may suspend a domain when the registry or the law requires it.</p>
<h2>Refunds</h2>
<p>A domain that could not be registered is not charged. A registration, once made, cannot be undone, and is
not refunded except where the law requires it.</p>
<h2>Contact</h2>
<p>Questions about these terms: contact us {contact}.</p>"""
    privacy = f"""<p>This policy explains what {store} ({seller}) does with your personal data.</p>
{address}
<h2>What we keep</h2>
<p>Your name, company, postal address, phone number and email address; your orders and payments (the payment
card itself is handled by our payment service, never stored by us); the address and browser of sign-ins, to
protect your account.</p>
<h2>Why</h2>
<p>To register and renew your domains (the domain registry and our registration provider receive your contact
details, as registration requires), to take payment, to send you receipts and renewal reminders, and to keep
your account secure.</p>
<h2>How long</h2>
<p>As long as you have an account, and afterwards as long as the law requires us to keep records of sales.</p>
<h2>Your rights</h2>
<p>You may ask to see, correct or delete your data, and you may close your account. Contact us {contact}.</p>"""
    agreement = f"""<p>This agreement is between you (the registrant) and {seller}, operating {store}, for each
domain name you register or renew through {store}.</p>
{address}
<h2>Registration</h2>
<p>We register domains through an accredited registration provider. A registration is complete only once the
registry confirms it; until then the name may be taken by someone else.</p>
<h2>Registrant details</h2>
<p>You give true, complete and current contact details for every domain, and correct them within seven days of a
change. The registry and its policies may require them to be published or verified; false details may lead to
the domain's suspension or deletion.</p>
<h2>Registry policies</h2>
<p>Each domain is also subject to the policies of its registry, including dispute resolution (such as the UDRP
for generic domains). You agree to be bound by them.</p>
<h2>Term, renewal and expiry</h2>
<p>A domain is registered for the number of years you paid for. We remind you before it expires; a domain not
renewed in time may be deleted and registered by anyone.</p>
<h2>Transfers</h2>
<p>You may move a domain to another registrar with its transfer code, which you can see in your account, subject
to the registry's rules (for example no transfer in the first 60 days).</p>
<h2>Contact</h2>
<p>Contact us {contact}.</p>"""
    return [
        ("/legal/terms/", "Terms of service", terms),
        ("/legal/privacy/", "Privacy policy", privacy),
        ("/legal/registration-agreement/", "Domain registration agreement", agreement),
    ]


def legal_pages_ensure(*, flatpage_model: Any, site: Any) -> int:
    """Create the legal pages that do not exist (with either model class: the app's or a migration's). Returns
    how many were created."""
    created = 0
    for url, title, content in starter_pages():
        page, new = flatpage_model.objects.get_or_create(url=url, defaults={"title": title, "content": content})
        if new:
            page.sites.add(site)
            created += 1
    return created
