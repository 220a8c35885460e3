"""Load test: many simulated customers drive the whole journey against gunicorn and the sandbox.

    .venv/bin/python bench/load.py [--customers 40] [--concurrency 8] [--slow-seconds 2]

Starts the sandbox and the storefront as separate gunicorn processes on loopback (see bench/servers.py), then:
1. the journey: home, search as you type (htmx), add to cart, sign up, checkout, dashboard; per customer;
2. a slow provider (every provider call delayed): searches pile up on the provider while pages that do not
   need it (home, cart, sign-in) are timed alongside.
Prints throughput, p50/p95/p99 per step and errors. Everything is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from servers import running

WORDS = ["coffee", "garden", "rocket", "bakery", "studio", "harbor", "maple", "pixel", "summit", "lumen"]
HIDDEN_CHECKOUT = re.compile(r'name="checkout_id" value="([^"]+)"')
HIDDEN_DIGEST = re.compile(r'name="review_digest" value="([^"]+)"')


class Browser:
    """A minimal cookie-keeping HTTP client that behaves like a browser behind the PaaS's HTTPS router."""

    _count = 0
    _count_lock = threading.Lock()

    def __init__(self, base: str) -> None:
        with Browser._count_lock:
            Browser._count += 1
            number = Browser._count
        # Each simulated customer comes from its own address (198.18.0.0/15 is for benchmarks), as the
        # platform's router would report it: the storefront trusts one proxy (TRUSTED_PROXY_COUNT=1).
        self.address = f"198.18.{number // 250}.{number % 250 + 1}"
        parsed = urlparse(base)
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.origin = f"https://{self.host}:{self.port}"
        self.cookies: dict[str, str] = {}
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)

    def request(self, method: str, path: str, form: dict[str, str] | None = None, htmx: bool = False):
        headers = {
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": self.address,
            "Referer": self.origin + "/",
            "Origin": self.origin,
        }
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if method != "GET":
            # Every unsafe request carries the token, with or without a form: the confirmation POST has no fields.
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if htmx:
            headers["HX-Request"] = "true"
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
            raise
        text = response.read().decode("utf-8", "replace")
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, text


class Results:
    def __init__(self) -> None:
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        # The statuses behind the errors, per step: an error count alone does not say what went wrong.
        self.statuses: dict[str, Counter[int]] = defaultdict(Counter)
        self.lock = threading.Lock()

    def timed(self, step: str, browser: Browser, method: str, path: str, *, expect=(200, 302), **kwargs):
        started = time.perf_counter()
        try:
            status, text = browser.request(method, path, **kwargs)
        except (OSError, http.client.HTTPException):
            status, text = 0, ""
        elapsed = time.perf_counter() - started
        with self.lock:
            self.timings[step].append(elapsed)
            if status not in expect:
                self.errors[step] += 1
                self.statuses[step][status] += 1
        return status, text

    def report(self, title: str, seconds: float) -> None:
        total = sum(len(v) for v in self.timings.values())
        errors = sum(self.errors.values())
        print(f"\n{title}: {total} requests in {seconds:.1f} s = {total / seconds:.1f} req/s, {errors} errors")
        for step, statuses in self.statuses.items():
            print(f"  {step}: unexpected statuses {dict(statuses)}")
        print(f"{'step':<22}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'errors':>8}")
        for step, values in self.timings.items():
            ordered = sorted(values)
            q = statistics.quantiles(ordered, n=100) if len(ordered) > 1 else ordered * 99
            print(
                f"{step:<22}{len(ordered):>6}{statistics.median(ordered) * 1000:>10.1f}"
                f"{q[94] * 1000:>10.1f}{q[98] * 1000:>10.1f}{self.errors.get(step, 0):>8}"
            )


def journey(base: str, number: int, results: Results) -> None:
    browser = Browser(base)
    word = WORDS[number % len(WORDS)]
    results.timed("home", browser, "GET", "/")
    for typed in (word[:3], word[:5], word):  # as the customer types
        results.timed("search (htmx)", browser, "GET", "/search/?" + urlencode({"q": typed}), htmx=True)
    label = f"{word}{uuid.uuid4().hex[:8]}"
    results.timed("cart add", browser, "POST", "/cart/add/", form={"domain_name": f"{label}.com"})
    results.timed("cart", browser, "GET", "/cart/")
    results.timed("signup page", browser, "GET", "/accounts/signup/?next=/checkout/")
    signup = {
        "name": f"Load Customer {number}",
        "company": "",
        "address": "1 Main Street",
        "city": "Springfield",
        "state": "Illinois",
        "country": "US",
        "zipcode": "62701",
        "country_code": "1",
        "phone": "2175550100",
        "email": f"load-{uuid.uuid4().hex[:12]}@example.com",
        "password": "Sup3r*Secret",
        "password2": "Sup3r*Secret",
    }
    results.timed("signup", browser, "POST", "/accounts/signup/?next=/checkout/", form=signup, expect=(302,))
    # The link of the confirmation email (sent to no one here): its key, as the storefront signs it.
    key = _confirmation_key(signup["email"])
    results.timed("confirm email page", browser, "GET", f"/accounts/confirm-email/{key}/")
    results.timed("confirm email", browser, "POST", f"/accounts/confirm-email/{key}/", expect=(302,))
    _, page = results.timed("checkout review", browser, "GET", "/checkout/")
    found, digest = HIDDEN_CHECKOUT.search(page), HIDDEN_DIGEST.search(page)
    if found and digest:
        form = {"checkout_id": found.group(1), "review_digest": digest.group(1), "accept_terms": "on"}
        results.timed("checkout place", browser, "POST", "/checkout/", form=form)
    else:
        with results.lock:
            results.errors["checkout place"] += 1
    results.timed("orders", browser, "GET", "/orders/")


def _confirmation_key(email: str) -> str:
    from allauth.account.models import EmailAddress, EmailConfirmationHMAC

    return EmailConfirmationHMAC(EmailAddress.objects.get(email=email)).key


def run_journeys(base: str, customers: int, concurrency: int) -> None:
    results = Results()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(lambda n: journey(base, n, results), range(customers)))
    results.report(f"Journey, {customers} customers, {concurrency} at a time", time.perf_counter() - started)


def run_slow_provider(base: str, servers, slow_seconds: float, concurrency: int) -> None:
    set_latency = (
        "from sandbox.faults import demo_partner; from sandbox.models import Fault; "
        "Fault.objects.update_or_create(partner=demo_partner(), defaults={{'latency_ms': {ms}}})"
    )
    servers.sandbox_manage("shell", "-c", set_latency.format(ms=int(slow_seconds * 1000)))
    results = Results()
    stop = time.monotonic() + max(6.0, slow_seconds * 3)

    def slow_searcher(n: int) -> None:
        browser = Browser(base)
        i = 0
        while time.monotonic() < stop:
            i += 1
            results.timed("search, slow provider", browser, "GET", f"/search/?q=slow{n}x{i}", htmx=True)
            time.sleep(0.5)  # a person reads the answer before typing on

    def page_visitor(_: int) -> None:
        browser = Browser(base)
        while time.monotonic() < stop:
            results.timed("home", browser, "GET", "/")
            results.timed("cart", browser, "GET", "/cart/")
            results.timed("sign-in page", browser, "GET", "/accounts/login/")

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency + 2) as pool:
        futures = [pool.submit(slow_searcher, n) for n in range(concurrency)]
        futures += [pool.submit(page_visitor, n) for n in range(2)]
        for future in futures:
            future.result()
    servers.sandbox_manage("shell", "-c", set_latency.format(ms=0))
    results.report(
        f"Slow provider ({slow_seconds:.0f} s per call), {concurrency} searching while 2 browse",
        time.perf_counter() - started,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--slow-seconds", type=float, default=2.0)
    args = parser.parse_args()
    with running() as servers:
        # This process reads the storefront's database (for the confirmation keys) with the storefront's settings.
        os.environ.update(servers.store_env)
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        import django

        django.setup()
        print(f"storefront {servers.storefront} (gunicorn 2 workers x 16 threads), sandbox {servers.sandbox}")
        run_journeys(servers.storefront, args.customers, args.concurrency)
        run_slow_provider(servers.storefront, servers, args.slow_seconds, args.concurrency)


if __name__ == "__main__":
    main()
