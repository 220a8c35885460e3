"""The fault matrix: each outside service stopped in turn while a scripted customer signs in, searches, buys and renews.

It starts the storefront as the Procfile does (the release step, gunicorn with production settings, the worker and
the scheduler) with a private Redis (bench/redis_server.py), the sandbox provider and payment service, an SMTP server
(bench/smtp_sink.py), and PostgreSQL or SQLite. The storefront reaches the provider's main interface, MetaSearch, the
payment service, the mail server and PostgreSQL through switches (bench/switches.py): turned off, a service refuses
connections and cuts the open ones, as a stopped one does. Then, once per fault:

- mail: the mail server stopped;        - redis: Redis stopped (the process, then started again on its port);
- database: PostgreSQL unreachable (SQLite: its write lock held) for DATABASE_DOWN_SECONDS;
- metasearch, main: the provider's MetaSearch, its main interface (registration, orders, DNS) stopped;
- payments: the payment service stopped.

While it is off the customer goes through sign-in, search (page and as-you-type fragment), add to cart, review, Buy
and pay, and a renewal paid on the payment page. No flow needs the mail server, Redis or MetaSearch: with one of them
off every flow must finish while it is still off (the mail server's refused emails wait in the outbox). With the
others, once the service is back, every flow that could not finish is finished (the worker's retries, the
confirmation pages' polls). It checks, and prints per fault, what customers saw:

- no answer 500, or 5xx without a sentence for the customer; no request over 30 s (a router's limit);
- every flow completes (the domain registered, the renewal made), and every email is delivered in the end;
- nothing charged without a domain: every captured payment's lines are registered domains or renewals the provider
  has, no payment is left holding money, and no domain bought is uncharged;
- with Redis away, /readyz says the cache is degraded and the log says limits count per process.

Run: `.venv/bin/python bench/fault_matrix.py [--web-processes 2] [--postgres postgres://postgres@127.0.0.1:5432]`
(`--postgres` also takes the database name to use, created afresh and dropped after: `…/5432/name`). Exits
non-zero on any failure. tests/storefront/test_fault_matrix_stack.py runs it in CI on SQLite and PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.prod_like import CONTACT, Browser, _procfile, _start, _texts, hidden
from bench.redis_server import RedisServer
from bench.servers import (
    PYTHON,
    ROOT,
    SECRET,
    _manage,
    _sandbox_env,
    _wait_until_up,
    collect_static,
    finished,
    free_port,
    sandbox_prepare,
)
from bench.smtp_sink import SmtpSink
from bench.switches import Switch

FAULTS = ("mail", "redis", "database", "metasearch", "main", "payments")
PASSWORD = "Fault#Pass92"
GOOD_CARD = "4242 4242 4242 4242"
ROUTER_LIMIT = 30.0  # seconds: a PaaS router cuts a request there
DATABASE_DOWN_SECONDS = 6.0
# How long, once a service is back, every flow has to finish (breakers' cooldowns, the worker's retries).
COMPLETE_WITHIN = 90.0
# The outbox tries a refused email again after a minute or so, and the scheduler's sweep runs every minute.
EMAILS_WITHIN = 180.0
# A 5xx page must say something a customer can act on.
SENTENCES = ("try again", "not answering", "unavailable", "cannot be reached", "cannot reach", "in a moment")


# --- What the customer saw -------------------------------------------------------------------------------------


@dataclass
class Seen:
    fault: str
    when: str  # "during" the fault or "after" it
    step: str
    status: int  # 0: no answer at all
    seconds: float
    said: str


@dataclass
class Report:
    seen: list[Seen] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    completed: dict[str, dict[str, float]] = field(default_factory=dict)  # fault -> flow -> seconds after recovery
    notes: dict[str, object] = field(default_factory=dict)

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)


_NOTICE = re.compile(r'<(p|div|li)[^>]*class="[^"]*(?:notice|message|lede|error)[^"]*"[^>]*>(.*?)</\1>', re.S | re.I)
_TAGS = re.compile(r"<[^>]+>")


def said(html: str) -> str:
    """The page's notices and messages, as the customer reads them (what a fault made the page say)."""
    texts = [" ".join(_TAGS.sub(" ", found.group(2)).split()) for found in _NOTICE.finditer(html)]
    # Each notice cut on its own: a long one (the registrant-verification notice on the domain page) must not push
    # the fault's sentence after it out of what is checked.
    return " / ".join(dict.fromkeys(text[:160] for text in texts if text))


class Shopper:
    """The scripted customer: a browser behind the router whose every request is recorded against the fault."""

    def __init__(self, stack: Stack, report: Report, address: str) -> None:
        self.stack = stack
        self.report = report
        self.browser = Browser(stack.base, address)
        self.fault = "setup"
        self.when = "during"

    def _record(self, step: str, call: Callable[[], requests.Response]) -> requests.Response | None:
        started = time.monotonic()
        try:
            response = call()
        except requests.RequestException as err:
            seconds = time.monotonic() - started
            self.report.seen.append(Seen(self.fault, self.when, step, 0, seconds, type(err).__name__))
            return None
        seconds = time.monotonic() - started
        text = response.text if "html" in response.headers.get("Content-Type", "") else ""
        self.report.seen.append(Seen(self.fault, self.when, step, response.status_code, seconds, said(text)))
        return response

    def get(self, step: str, path: str, **headers: str) -> requests.Response | None:
        return self._record(step, lambda: self.browser.get(path, **headers))

    def post(self, step: str, path: str, data: dict[str, str]) -> requests.Response | None:
        return self._record(step, lambda: self.browser.post(path, data))

    def follow(self, step: str, response: requests.Response | None) -> requests.Response | None:
        """The page a redirect leads to on this site (a 303 to the payment page is not followed)."""
        if response is None or response.status_code not in (301, 302):
            return response
        location = urllib.parse.urlsplit(response.headers["Location"])
        return self.get(step, location.path + (f"?{location.query}" if location.query else ""))


# --- The customer's flows -----------------------------------------------------------------------------------------


@dataclass
class Flows:
    """One fault's flows and how far each got."""

    fault: str
    label: str
    order_id: int
    when: str = "during"  # the fault is on ("during") or the service is back ("after")
    shopper: Shopper | None = None
    signed_in: bool = False
    searched: bool = False
    checkout_id: str = ""
    session_id: str = ""
    registered: bool = False
    renew_token: str = ""
    renewal_session: str = ""
    renewed: bool = False

    @property
    def domain(self) -> str:
        return f"{self.label}.com"

    @property
    def done(self) -> dict[str, bool]:
        return {"sign-in": self.signed_in, "search": self.searched, "buy": self.registered, "renew": self.renewed}


def sign_in(stack: Stack, flows: Flows, shopper: Shopper) -> None:
    if flows.signed_in:
        return
    page = shopper.get("sign-in page", "/accounts/login/")
    if page is None or page.status_code != 200:
        return  # the customer reads the page's sentence and tries again later
    answer = shopper.post("sign in", "/accounts/login/", {"login": stack.email, "password": PASSWORD})
    flows.signed_in = answer is not None and answer.status_code == 302


def search(flows: Flows, shopper: Shopper) -> None:
    if flows.searched:
        return
    page = shopper.get("search page", f"/search/?q={flows.label}")
    fragment = shopper.get("search as you type", f"/search/?q={flows.label}", **{"HX-Request": "true"})
    flows.searched = all(
        answer is not None and answer.status_code == 200 and flows.domain in answer.text for answer in (page, fragment)
    )


def pay(stack: Stack, shopper: Shopper, step: str, path: str, form: dict[str, str]) -> str:
    """Post the form that leads to the payment page (a 303 there) and pay on it: the payment's session id, or ""
    when the store did not send the customer to pay (the page it showed instead is recorded)."""
    answer = shopper.post(step, path, form)
    if answer is None or answer.status_code != 303:
        shopper.follow(f"{step} (refused)", answer)
        return ""
    session_id = answer.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    stack.pay(session_id)
    return session_id


def buy(stack: Stack, flows: Flows, shopper: Shopper) -> None:
    """Add to cart, review, Buy, pay, return; then the confirmation page until the domain is registered."""
    if flows.registered:
        return
    if not flows.session_id:
        shopper.post("add to cart", "/cart/add/", {"domain_name": flows.domain})
        review = shopper.get("checkout review", "/checkout/")
        if review is None or 'name="checkout_id"' not in review.text:
            return
        form = {name: hidden(review.text, name) for name in ("checkout_id", "review_digest")}
        flows.session_id = pay(stack, shopper, "buy", "/checkout/", {**form, "accept_terms": "on"})
        if not flows.session_id:
            return
        flows.checkout_id = form["checkout_id"]
        path = f"/checkout/{flows.checkout_id}/?session_id={flows.session_id}"
    else:
        path = f"/checkout/{flows.checkout_id}/"
    done = shopper.get("confirmation page", path)
    flows.registered = done is not None and re.search(r"Done: 1 domain registered", done.text) is not None


def renew(stack: Stack, flows: Flows, shopper: Shopper) -> None:
    """The domain page's renewal: the term, its confirmation, the payment page, the return; until renewed."""
    if flows.renewed:
        return
    if not flows.renewal_session:
        page = shopper.get("domain page", f"/orders/{flows.order_id}/")
        if page is None or 'name="renew_token"' not in page.text:
            return
        form = {name: hidden(page.text, name) for name in ("renew_token", "expiry_timestamp")}
        confirm = shopper.post("renew", f"/orders/{flows.order_id}/renew/", {**form, "duration": "1"})
        if confirm is None or 'name="price_shown"' not in confirm.text:
            return
        asked = {**form, "duration": "1", "confirm": "on", "price_shown": hidden(confirm.text, "price_shown")}
        flows.renewal_session = pay(stack, shopper, "renew: confirm and pay", f"/orders/{flows.order_id}/renew/", asked)
        if not flows.renewal_session:
            return
        flows.renew_token = form["renew_token"]
    back = shopper.follow(
        "renewal's return", shopper.get("renewal's return", f"/orders/{flows.order_id}/?renewal={flows.renew_token}")
    )
    flows.renewed = back is not None and "Renewed until" in back.text


def flows_run(stack: Stack, flows: Flows) -> None:
    """One pass over every flow that has not finished (a new browser until one is signed in)."""
    if flows.shopper is None or not flows.signed_in:
        flows.shopper = Shopper(stack, stack.report, stack.address())
    shopper = flows.shopper
    shopper.fault, shopper.when = flows.fault, flows.when
    sign_in(stack, flows, shopper)
    search(flows, shopper)
    if flows.signed_in:
        buy(stack, flows, shopper)
        renew(stack, flows, shopper)


# --- The stack ----------------------------------------------------------------------------------------------------


class Stack:
    def __init__(self, *, folder: Path, web_processes: int, postgres: str, report: Report) -> None:
        self.folder = folder
        self.web_processes = web_processes
        self.postgres = postgres
        self.report = report
        self.processes: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.addresses = iter(f"203.0.113.{n}" for n in range(10, 250))
        self.email = f"matrix-{uuid.uuid4().hex[:8]}@example.org"
        self.emails_seen: list[str] = []

    def address(self) -> str:
        return next(self.addresses)

    @contextmanager
    def running(self) -> Iterator[Stack]:
        try:
            self._start()
            yield self
        finally:
            self._stop()

    def _start(self) -> None:
        self.redis = RedisServer().start()
        self.sink = SmtpSink().start()
        self.sandbox_port, self.store_port = free_port(), free_port()
        self.sandbox = f"http://127.0.0.1:{self.sandbox_port}"
        self.base = f"http://127.0.0.1:{self.store_port}"
        self.switches = {
            "main": Switch("main", self.sandbox_port).start(),
            "metasearch": Switch("metasearch", self.sandbox_port).start(),
            "payments": Switch("payments", self.sandbox_port).start(),
            "mail": Switch("mail", self.sink.port).start(),
        }
        database_url = self._database()
        sandbox_env = _sandbox_env(self.folder, f"sqlite:///{self.folder / 'sandbox.sqlite3'}") | {
            "SANDBOX_CONTROL": "1",
            "SANDBOX_STRIPE_WEBHOOK_URL": f"{self.base}/payments/stripe/webhook/",
            "SANDBOX_PASSWORD_HASHERS": "django.contrib.auth.hashers.MD5PasswordHasher",
        }
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RESELLER_", "STRIPE_"))}
        for name in ("DATABASE_URL", "CACHE_URL", "EMAIL_URL", "SITE_URL", "PAYMENTS_DISABLED"):
            base_env.pop(name, None)
        self.env = base_env | {
            "PATH": f"{Path(PYTHON).parent}:{os.environ.get('PATH', '')}",
            "DJANGO_SETTINGS_MODULE": "storefront.settings",
            "DJANGO_SECRET_KEY": SECRET,
            "DJANGO_SECURE_SSL_REDIRECT": "false",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SITE_URL": self.base,
            "PORT": str(self.store_port),
            "WEB_CONCURRENCY": str(self.web_processes),
            "DATABASE_URL": database_url,
            "CACHE_URL": f"rediscache://127.0.0.1:{self.redis.port}/0",
            "EMAIL_URL": f"smtp://127.0.0.1:{self.switches['mail'].port}",
            "RESELLER_SANDBOX": "false",
            "RESELLER_API_KEY": "test_sandbox_demo",
            "RESELLER_BASE_URL": f"http://127.0.0.1:{self.switches['main'].port}",
            "RESELLER_METASEARCH_URL": f"http://127.0.0.1:{self.switches['metasearch'].port}/metasearch",
            "RESELLER_PANEL_URL": f"{self.sandbox}/panel",
            "STRIPE_SECRET_KEY": "sk_test_payment_sandbox",
            "STRIPE_WEBHOOK_SECRET": "whsec_sandbox_local",
            "STRIPE_API_BASE": f"http://127.0.0.1:{self.switches['payments'].port}/stripe",
            "TRUSTED_PROXY_COUNT": "1",
            # Shorter breaker cooldowns than production's 30 s, so the run is short; the behaviour is the same.
            "RESELLER_BREAKER_SECONDS": "5",
            "STRIPE_BREAKER_SECONDS": "5",
            "LOG_LEVEL": "WARNING",
        }
        sandbox_prepared = sandbox_prepare(sandbox_env)
        # The store's release and build steps meanwhile: they share nothing with the sandbox's database.
        try:
            subprocess.run(
                ["bash", "-c", _procfile("release")], cwd=ROOT, env=self.env, check=True, capture_output=True
            )
            collect_static(self.env)
        except BaseException:
            sandbox_prepared.kill()
            raise
        finished(sandbox_prepared)
        gunicorn = [PYTHON, "-m", "gunicorn", "--worker-class", "gthread", "--log-level", "warning"]
        sandbox_log = (self.folder / "sandbox.log").open("wb")
        self.processes.append(
            subprocess.Popen(
                [*gunicorn, "sandbox.wsgi", "--bind", f"127.0.0.1:{self.sandbox_port}", "--threads", "16"],
                cwd=ROOT,
                env=sandbox_env,
                stdout=sandbox_log,
                stderr=subprocess.STDOUT,
            )
        )
        for kind in ("web", "worker", "bulk", "scheduler"):
            process, out, err = _start(kind, self.env, self.folder)
            self.processes.append(process)
            self.logs += [out, err]
        _wait_until_up(self.sandbox)
        _manage(self.env, "sync_prices")
        _wait_until_up(self.base)

    def _database(self) -> str:
        if not self.postgres:
            self.sqlite_file = self.folder / "storefront.sqlite3"
            return f"sqlite:///{self.sqlite_file}"
        import psycopg

        parts = urllib.parse.urlsplit(self.postgres)
        self.database_name = parts.path.strip("/") or f"storefront_faults_{uuid.uuid4().hex[:6]}"
        self.postgres_admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
        with psycopg.connect(self.postgres_admin, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.database_name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{self.database_name}"')
        self.switches["database"] = Switch("database", parts.port or 5432).start()
        netloc = parts.netloc.rsplit("@", 1)
        auth = f"{netloc[0]}@" if len(netloc) == 2 else ""
        return f"postgres://{auth}127.0.0.1:{self.switches['database'].port}/{self.database_name}"

    def _stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        for switch in getattr(self, "switches", {}).values():
            switch.stop()
        if getattr(self, "sink", None) is not None:
            self.sink.stop()
        if getattr(self, "redis", None) is not None:
            self.redis.__exit__(None, None, None)
        if self.postgres and getattr(self, "database_name", ""):
            import psycopg

            with psycopg.connect(self.postgres_admin, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{self.database_name}" WITH (FORCE)')

    # --- Faults ---------------------------------------------------------------------------------------------

    @contextmanager
    def fault(self, name: str) -> Iterator[None]:
        """The service `name` stopped for the block (the database: for DATABASE_DOWN_SECONDS, from its start)."""
        if name == "redis":
            self.redis.stop()
        elif name == "database":
            back = self._database_down()
        else:
            self.switches[name].stop()
        try:
            yield
        finally:
            if name == "redis":
                self.redis.start()
            elif name == "database":
                back.wait()
            else:
                self.switches[name].start()

    def _database_down(self) -> threading.Event:
        back = threading.Event()

        def hold() -> None:
            if self.postgres:
                self.switches["database"].stop()
                time.sleep(DATABASE_DOWN_SECONDS)
                self.switches["database"].start()
            else:
                # SQLite has no server to stop: its write lock is held, as a long writer or a full disk would.
                lock = sqlite3.connect(self.sqlite_file, timeout=30, isolation_level=None)
                lock.execute("BEGIN EXCLUSIVE")
                time.sleep(DATABASE_DOWN_SECONDS)
                lock.execute("ROLLBACK")
                lock.close()
            back.set()

        threading.Thread(target=hold, daemon=True).start()
        time.sleep(0.2)  # down before the customer's first request
        return back

    # --- The payment sandbox's control (what its hosted page does) and the storefront's state ----------------

    def pay(self, session_id: str) -> None:
        answer = requests.post(
            f"{self.sandbox}/_control/stripe/sessions/{session_id}/pay", json={"card": GOOD_CARD}, timeout=30
        )
        answer.raise_for_status()

    def state(self) -> dict:
        code = """
import json
from billing.models import Payment
from domains.models import Registration, Renewal
from storefront.models import OutgoingEmail
print(json.dumps({
  "payments": [
    {"checkout": str(p.checkout_id), "status": p.status, "captured": str(p.amount_captured),
     "lines": [{"ref": l.reference, "kind": l.details.get("kind", "registration"), "status": l.status,
                "amount": str(l.amount)} for l in p.lines.all()]}
    for p in Payment.objects.prefetch_related("lines")],
  "registrations": {r.domain_name: r.status for r in Registration.objects.all()},
  "renewals": {str(r.token): r.status for r in Renewal.objects.all()},
  "emails": {"sent": OutgoingEmail.objects.filter(sent_at__isnull=False).count(),
             "waiting": OutgoingEmail.objects.filter(sent_at__isnull=True, dropped_at__isnull=True).count()},
}))
"""
        result = subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", code], cwd=ROOT, env=self.env, capture_output=True, text=True
        )
        if result.returncode != 0:
            raise RuntimeError(result.stderr[-2000:])
        return json.loads(result.stdout.strip().splitlines()[-1])

    def provider_domains(self) -> set[str]:
        rows = requests.get(f"{self.sandbox}/_control/rows/DomainOrder", timeout=30).json()["rows"]
        return {row["domain_name"] for row in rows if row["status"] != "Failed"}

    def readyz(self) -> dict:
        return requests.get(f"{self.base}/readyz", headers={"X-Forwarded-Proto": "https"}, timeout=30).json()


# --- The run ------------------------------------------------------------------------------------------------------


def setup(stack: Stack) -> int:
    """A customer signed up, their address confirmed (the provider customer made), and a first domain bought: the
    order every fault's renewal renews."""
    shopper = Shopper(stack, stack.report, stack.address())
    shopper.get("signup page", "/accounts/signup/")
    form = {**CONTACT, "email": stack.email, "password": PASSWORD, "password2": PASSWORD}
    signed_up = shopper.post("signup", "/accounts/signup/", form)
    stack.report.check(signed_up is not None and signed_up.status_code == 302, "signup failed")
    link = ""
    deadline = time.monotonic() + 30
    while not link and time.monotonic() < deadline:
        for message in stack.sink.snapshot()[0]:
            found = re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^\s]+/)", _texts(message.data))
            if found and stack.email in message.recipients:
                link = found.group(1)
        time.sleep(0.3)
    if not link:
        raise RuntimeError("the address confirmation never arrived")
    confirmed = shopper.post("confirm address", link, {})
    stack.report.check(confirmed is not None and confirmed.status_code == 302, "the address confirmation failed")
    first = Flows(fault="setup", label=f"matrix{uuid.uuid4().hex[:8]}", order_id=0, shopper=shopper, signed_in=True)
    deadline = time.monotonic() + 30
    while not first.registered and time.monotonic() < deadline:
        buy(stack, first, shopper)
        time.sleep(0.5)
    if not first.registered:
        raise RuntimeError("the first domain could not be bought with every service up")
    orders = shopper.get("orders", "/orders/")
    found_order = re.search(r'href="/orders/(\d+)/"', orders.text if orders is not None else "")
    if found_order is None:
        raise RuntimeError("the first domain is not on the dashboard")
    return int(found_order.group(1))


# No flow a customer goes through needs these: with one away, every flow must finish while it is still away.
NOT_NEEDED = ("mail", "redis", "metasearch")


def run_fault(stack: Stack, fault: str, order_id: int) -> Flows:
    """The customer's flows with `fault` on: once through (twice for the database's few seconds), or to the end when
    no flow needs the service; then, with the service back, every flow finished."""
    report = stack.report
    flows = Flows(fault=fault, label=f"{fault}{uuid.uuid4().hex[:8]}", order_id=order_id)
    with stack.fault(fault):
        if fault == "redis":
            report.notes["readyz while Redis is away"] = stack.readyz().get("checks", {}).get("cache")
        if fault in NOT_NEEDED:
            report.completed[fault] = _until_done(stack, flows, fault)
            if fault == "mail":
                # The emails of what was just bought and renewed were refused, and wait in the outbox.
                report.notes["emails waiting while the mail server was off"] = stack.state()["emails"]["waiting"]
        else:
            flows_run(stack, flows)
            if fault == "database":
                time.sleep(1)
                flows_run(stack, flows)  # still within the outage on a fast machine
    flows.when = "after"
    if fault not in NOT_NEEDED:
        report.completed[fault] = _until_done(stack, flows, fault)
    return flows


def _until_done(stack: Stack, flows: Flows, fault: str) -> dict[str, float]:
    """Every flow run again until done, within COMPLETE_WITHIN: seconds from now to each flow's end."""
    started = time.monotonic()
    finished: dict[str, float] = {flow: 0.0 for flow, done in flows.done.items() if done}
    while not all(flows.done.values()) and time.monotonic() - started <= COMPLETE_WITHIN:
        flows_run(stack, flows)
        for flow, done in flows.done.items():
            if done and flow not in finished:
                finished[flow] = round(time.monotonic() - started, 1)
        if not all(flows.done.values()):
            time.sleep(1)
    for flow, done in flows.done.items():
        stack.report.check(done, f"{fault}: {flow} did not complete within {COMPLETE_WITHIN:.0f} s ({flows.when})")
    return finished


def verify(stack: Stack, every: list[Flows]) -> None:
    report = stack.report
    deadline = time.monotonic() + EMAILS_WITHIN
    state = stack.state()
    while state["emails"]["waiting"] and time.monotonic() < deadline:
        time.sleep(5)
        state = stack.state()
    report.notes["emails sent"] = state["emails"]["sent"]
    if "mail" in report.completed:
        report.check(
            bool(report.notes.get("emails waiting while the mail server was off")),
            "no email was refused while the mail server was off: the mail fault tested nothing",
        )
    report.check(not state["emails"]["waiting"], f"{state['emails']['waiting']} email(s) never delivered")
    held = [p for p in state["payments"] if p["status"] == "authorised"]
    report.check(not held, f"{len(held)} payment(s) still hold money: {held}")
    provider = stack.provider_domains()
    charged = set()
    for payment in state["payments"]:
        registered = [line for line in payment["lines"] if line["status"] == "registered"]
        total = sum(float(line["amount"]) for line in registered)
        report.check(
            abs(total - float(payment["captured"])) < 0.005,
            f"payment {payment['checkout']} captured {payment['captured']}, its delivered lines come to {total:.2f}",
        )
        for line in registered:
            if line["kind"] == "renewal":
                ok = state["renewals"].get(payment["checkout"]) == "renewed"
            else:
                ok = line["ref"] in provider and state["registrations"].get(line["ref"]) == "registered"
                charged.add(line["ref"])
            report.check(ok, f"{line['ref']} was charged without being delivered")
    bought = {flows.domain for flows in every}
    report.check(bought <= charged, f"bought but never charged: {sorted(bought - charged)}")
    if "redis" in report.completed:
        log = "\n".join(path.read_text(errors="replace") for path in stack.logs)
        report.notes["log says limits count per process"] = "per-process limiter" in log
        report.check("per-process limiter" in log, "the log never said the cache fell back to per-process limits")
        report.check(
            report.notes.get("readyz while Redis is away") == "degraded",
            f"/readyz said the cache was {report.notes.get('readyz while Redis is away')!r} while Redis was away",
        )
    for seen in report.seen:
        if seen.status == 500 or (seen.status > 500 and not any(s in seen.said.lower() for s in SENTENCES)):
            report.failures.append(f"{seen.fault}: {seen.step} answered {seen.status} ({seen.said!r})")
        if seen.status == 0 or seen.seconds >= ROUTER_LIMIT:
            report.failures.append(f"{seen.fault}: {seen.step} got no answer within {ROUTER_LIMIT:.0f} s")


@contextmanager
def _folder() -> Iterator[str]:
    """A temporary folder for the run (kept, and named, with FAULT_MATRIX_KEEP=1: its logs)."""
    if os.environ.get("FAULT_MATRIX_KEEP"):
        folder = tempfile.mkdtemp(prefix="storefront-faults-")
        print(f"folder: {folder}")
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="storefront-faults-") as folder:
        yield folder


def run(*, web_processes: int, postgres: str, faults: tuple[str, ...]) -> Report:
    report = Report()
    started = time.monotonic()
    with _folder() as tmp:
        stack = Stack(folder=Path(tmp), web_processes=web_processes, postgres=postgres, report=report)
        with stack.running():
            report.notes["database"] = "PostgreSQL" if postgres else "SQLite"
            report.notes["startup seconds"] = round(time.monotonic() - started, 1)
            order_id = setup(stack)
            every = [run_fault(stack, fault, order_id) for fault in faults]
            verify(stack, every)
    report.notes["total seconds"] = round(time.monotonic() - started, 1)
    return report


# Words of a page that tells the customer something is away or delayed (the other notices say what they did).
_FAULT_WORDS = ("unavailable", "not answering", "cannot", "could not", "still confirming", "waits", "try again")


def _about_the_fault(seen: Seen) -> bool:
    return seen.status >= 400 or seen.status == 0 or any(word in seen.said.lower() for word in _FAULT_WORDS)


def print_report(report: Report, *, verbose: bool = False) -> None:
    if verbose:
        for seen in report.seen:
            print(f"{seen.fault:>10} {seen.when:>6} {seen.status:>3} {seen.seconds:5.1f}s {seen.step}: {seen.said}")
    for name, value in report.notes.items():
        print(f"{name}: {value}")
    for fault in report.completed:
        seen = [s for s in report.seen if s.fault == fault]
        during = [s for s in seen if s.when == "during"]
        statuses = Counter(s.status for s in seen)
        slowest = max((s.seconds for s in seen), default=0.0)
        told = sorted({f"{s.step} ({s.status}): {s.said}" for s in during if _about_the_fault(s)})
        print(f"\n== {fault}: {len(seen)} requests, statuses {dict(sorted(statuses.items()))}, slowest {slowest:.1f} s")
        print("   while it was off: " + ("\n     ".join(["", *told]) if told else "every page answered as usual"))
        done = ", ".join(f"{flow} {seconds} s" for flow, seconds in report.completed[fault].items())
        when = "done while it was still off, in" if fault in NOT_NEEDED else "after its return, done in"
        print(f"   {when}: {done}")
    for failure in report.failures:
        print(f"FAIL: {failure}")
    print("fault_matrix: " + ("FAILED" if report.failures else "OK"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--web-processes", type=int, default=2)
    parser.add_argument("--postgres", default="", help="postgres://user@host:port[/database]; SQLite without it")
    parser.add_argument("--faults", default=",".join(FAULTS), help="comma-separated, in order (default: all)")
    parser.add_argument("--verbose", action="store_true", help="print every request the customer made")
    options = parser.parse_args()
    faults = tuple(name for name in options.faults.split(",") if name)
    unknown = set(faults) - set(FAULTS)
    if unknown:
        parser.error(f"unknown faults {sorted(unknown)}; known: {', '.join(FAULTS)}")
    report = run(web_processes=options.web_processes, postgres=options.postgres, faults=faults)
    print_report(report, verbose=options.verbose)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
