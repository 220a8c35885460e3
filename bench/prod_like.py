"""A production-like run that replays the attacks of the security issue and says, with numbers, how they went.

It starts the storefront as the Procfile does (gunicorn, 2 gthread workers, production settings, the default
cache = the database cache, the worker for emails) with a real SMTP server (bench/smtp_sink.py) and the
sandbox provider, then:

1. replays one renew form 4 times in parallel: exactly one renewal (the expiry moves one term, one record);
2. sends more cart additions than the limit allows, each on a new connection (both workers): the limit is
   counted once across the workers;
3. asks for a password reset, opens the link as the customer would, reveals the transfer code;
4. scans gunicorn's and the worker's stdout/stderr and the mail server's transport log for canaries (the reset
   token and link path, the provider key, the one-time codes: transfer code and renew token, the password);
   the reset link must reach the customer's email only.

Prints its numbers; exits non-zero on any failure. Run: `.venv/bin/python bench/prod_like.py`.
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.servers import (
    PYTHON,
    ROOT,
    SECRET,
    _sandbox_env,
    _wait_until_up,
    collect_static,
    finished,
    free_port,
    sandbox_prepare,
)
from bench.smtp_sink import SmtpSink

PROVIDER_KEY = "test_sandbox_demo"
PASSWORD = "Prod#Like-Pass9"
CART_LIMIT = 10
CART_TRIES = 24
RENEW_REPLAYS = 4
CONTACT = {
    "name": "Grace Hopper",
    "company": "",
    "address": "1 Navy Yard",
    "city": "Arlington",
    "state": "Virginia",
    "country": "US",
    "zipcode": "22202",
    "country_code": "1",
    "phone": "7035550100",
}


@dataclass
class Report:
    failures: list[str] = field(default_factory=list)
    numbers: dict[str, object] = field(default_factory=dict)

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)

    def note(self, **numbers: object) -> None:
        self.numbers.update(numbers)


class Browser:
    """One customer's browser behind an HTTPS router: cookies kept whatever their Secure flag (the router
    speaks HTTPS to the customer), the forwarded protocol and address a router adds, a Referer for CSRF."""

    def __init__(self, base: str, address: str) -> None:
        self.base = base
        self.address = address
        self.cookies: dict[str, str] = {}

    def _headers(self, path: str) -> dict[str, str]:
        host = urllib.parse.urlsplit(self.base).netloc
        headers = {
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": self.address,
            "Referer": f"https://{host}{path}",
            # A new connection per request: the kernel hands each to whichever worker accepts first.
            "Connection": "close",
        }
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return headers

    def _keep(self, response: requests.Response) -> requests.Response:
        # Read from the Set-Cookie headers themselves: a cookie the site deletes (Max-Age=0, as Django does with a
        # message shown) never reaches requests' cookie jar, and would otherwise be sent again for good.
        for header in response.raw.headers.getlist("Set-Cookie"):
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return response

    def get(self, path: str, **headers: str) -> requests.Response:
        return self._keep(
            requests.get(
                self.base + path, headers={**self._headers(path), **headers}, allow_redirects=False, timeout=30
            )
        )

    def post(self, path: str, data: dict[str, str]) -> requests.Response:
        data = {"csrfmiddlewaretoken": self.cookies.get("csrftoken", ""), **data}
        return self._keep(
            requests.post(self.base + path, data=data, headers=self._headers(path), allow_redirects=False, timeout=30)
        )


def hidden(html: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', html)
    if match is None:
        raise AssertionError(f"no hidden field {name}")
    return match.group(1)


def _procfile(kind: str) -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith(f"{kind}:"):
            return line.partition(":")[2].strip()
    raise RuntimeError(f"no {kind} process in the Procfile")


def _start(kind: str, env: dict[str, str], folder: Path) -> tuple[subprocess.Popen, Path, Path]:
    """The Procfile's command for `kind`, run by a shell as the platform runs it, its output kept in files."""
    out, err = folder / f"{kind}.stdout", folder / f"{kind}.stderr"
    process = subprocess.Popen(
        ["bash", "-c", "exec " + _procfile(kind)],
        cwd=ROOT,
        env=env,
        stdout=out.open("wb"),
        stderr=err.open("wb"),
    )
    return process, out, err


def _shell(env: dict[str, str], code: str) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", "shell", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-2000:])
    return result.stdout.strip().splitlines()[-1]


def _seed(env: dict[str, str], email_address: str, domain_name: str) -> int:
    """A customer with a provider account and one domain, as signup and checkout would leave them."""
    code = f"""
from django.contrib.auth import get_user_model
from accounts.models import Customer
from domains.models import Order
from storefront.gateway import gateway
contact = {CONTACT!r}
created = gateway().customer_signup(email={email_address!r}, password={PASSWORD!r}, **contact)
user = get_user_model().objects.create_user(username={email_address!r}, email={email_address!r}, password={PASSWORD!r})
customer = Customer.objects.create(user=user, customer_id=created.customer_id, **contact)
order = gateway().domain_register(customer_id=created.customer_id, domain_name={domain_name!r}, duration=1)
Order.objects.create(order_id=order.order_id, customer=customer, domain_name={domain_name!r})
print(order.order_id)
"""
    return int(_shell(env, code))


def _renewals(env: dict[str, str], order_id: int) -> dict[str, object]:
    code = f"""
import json
from domains.models import Order, Renewal
from domains.orders.services import order_fetch
from storefront.models import OutgoingEmail
order = Order.objects.get(order_id={order_id})
current = order_fetch(order=order)
emailed = OutgoingEmail.objects.filter(key__startswith="renewal:", sent_at__isnull=False).count()
print(json.dumps({{"renewed": Renewal.objects.filter(status="renewed").count(), "rows": Renewal.objects.count(),
    "expiry": current.expiry_timestamp, "emailed": emailed}}))
"""
    return json.loads(_shell(env, code))


def _texts(data: str) -> str:
    """A message's text parts, decoded (quoted-printable lines rejoined), so a link split by encoding is found."""
    message = email.message_from_string(data, policy=email.policy.default)
    return "\n".join(part.get_content() for part in message.walk() if part.get_content_maintype() == "text")


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return predicate()


def run() -> Report:
    report = Report()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="storefront-prodlike-") as tmp:
        folder = Path(tmp)
        sink = SmtpSink().start()
        sandbox_port, store_port = free_port(), free_port()
        sandbox_env = _sandbox_env(folder, f"sqlite:///{folder / 'sandbox.sqlite3'}")
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RESELLER_", "DATABASE_URL"))}
        base_env.pop("CACHE_URL", None)  # the default cache: the database cache, shared by the workers
        base_env.pop("EMAIL_URL", None)
        store_env = base_env | {
            "PATH": f"{Path(PYTHON).parent}:{os.environ.get('PATH', '')}",
            "DJANGO_SETTINGS_MODULE": "storefront.settings",
            "DJANGO_SECRET_KEY": SECRET,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": f"sqlite:///{folder / 'storefront.sqlite3'}?timeout=30",
            "PORT": str(store_port),
            "RESELLER_SANDBOX": "false",
            "RESELLER_API_KEY": PROVIDER_KEY,
            "RESELLER_BASE_URL": f"http://127.0.0.1:{sandbox_port}",
            "RESELLER_METASEARCH_URL": f"http://127.0.0.1:{sandbox_port}/metasearch",
            "RESELLER_PANEL_URL": f"http://127.0.0.1:{sandbox_port}/panel",
            "TRUSTED_PROXY_COUNT": "1",
            "EMAIL_URL": sink.url,
            "SITE_URL": f"http://127.0.0.1:{store_port}",
            "RATE_LIMIT_CART": f"{CART_LIMIT}/600",
            # The replays race the renewal itself (the reseller bills offline); paying first is raced in
            # tests/domains/orders/test_order_renew_payment.py (the webhook replayed against the return).
            "PAYMENTS_DISABLED": "true",
        }
        processes: list[subprocess.Popen] = []
        logs: list[Path] = []
        try:
            sandbox_prepared = sandbox_prepare(sandbox_env)
            # The store's release and build steps meanwhile: they share nothing with the sandbox's database.
            try:
                subprocess.run(
                    ["bash", "-c", _procfile("release")], cwd=ROOT, env=store_env, check=True, capture_output=True
                )
                collect_static(store_env)
            except BaseException:
                sandbox_prepared.kill()
                raise
            finished(sandbox_prepared)
            gunicorn = [PYTHON, "-m", "gunicorn", "--worker-class", "gthread", "--log-level", "warning"]
            processes.append(
                subprocess.Popen(
                    [*gunicorn, "sandbox.wsgi", "--bind", f"127.0.0.1:{sandbox_port}", "--threads", "16"],
                    cwd=ROOT,
                    env=sandbox_env,
                )
            )
            # The web and worker processes (paid and bulk work), as the Procfile says.
            for kind in ("web", "worker", "bulk"):
                process, out, err = _start(kind, store_env, folder)
                processes.append(process)
                logs += [out, err]
            _wait_until_up(f"http://127.0.0.1:{sandbox_port}")
            suffix = uuid.uuid4().hex[:8]
            address = f"grace-{suffix}@example.org"
            order_id = _seed(store_env, address, f"prodlike{suffix}.com")
            base = f"http://127.0.0.1:{store_port}"
            _wait_until_up(base)
            report.note(startup_seconds=round(time.monotonic() - started, 1))

            canaries = {"provider key": PROVIDER_KEY, "password": PASSWORD}
            _renew_replay(report, base, store_env, address, order_id, canaries)
            _rate_limit(report, base)
            _reset_and_codes(report, base, address, order_id, sink, canaries)
            # Let the worker send the renewal email before the logs are read.
            _wait_for(lambda: _renewals(store_env, order_id)["emailed"] >= 1, 15)
            # Read once the processes have stopped: each writes its queued log lines as it exits
            # (storefront/observability/log_handlers.py), and a line still queued must be scanned too.
            _stop_all(processes)
            _scan(report, logs, sink, canaries)
        finally:
            _stop_all(processes)
            sink.stop()
    report.note(total_seconds=round(time.monotonic() - started, 1))
    return report


def _stop_all(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _sign_in(base: str, address: str, email_address: str) -> Browser:
    browser = Browser(base, address)
    browser.get("/accounts/login/")
    response = browser.post("/accounts/login/", {"login": email_address, "password": PASSWORD})
    if response.status_code != 302:
        raise AssertionError(f"sign-in failed: {response.status_code}")
    return browser


def _renew_replay(
    report: Report, base: str, env: dict[str, str], email_address: str, order_id: int, canaries: dict[str, str]
) -> None:
    browser = _sign_in(base, "203.0.113.10", email_address)
    page = browser.get(f"/orders/{order_id}/").text
    form = {
        "renew_token": hidden(page, "renew_token"),
        "expiry_timestamp": hidden(page, "expiry_timestamp"),
        "duration": "1",
    }
    canaries["renew token"] = form["renew_token"]
    before = _renewals(env, order_id)
    confirmation = browser.post(f"/orders/{order_id}/renew/", form)
    report.check("Confirm the renewal" in confirmation.text, "the renew form's first step shows no confirmation")
    # The confirmation's button sends the price it showed (none here: this store has no price list synced).
    form["price_shown"] = dict(re.findall(r'name="(\w+)" value="([^"]*)"', confirmation.text)).get("price_shown", "")
    with ThreadPoolExecutor(RENEW_REPLAYS) as pool:
        answers = list(
            pool.map(
                lambda _: browser.post(f"/orders/{order_id}/renew/", form | {"confirm": "on"}), range(RENEW_REPLAYS)
            )
        )
    after = _renewals(env, order_id)
    one_year = after["expiry"] - before["expiry"]
    renewed = after["renewed"] - before["renewed"]
    report.note(
        renew_replays=RENEW_REPLAYS,
        renew_statuses=sorted(a.status_code for a in answers),
        renewals_recorded=renewed,
        expiry_moved_days=round(one_year / 86400),
    )
    report.check(renewed == 1, f"{RENEW_REPLAYS} replays of one renew form made {renewed} renewals (want 1)")
    report.check(365 <= one_year / 86400 <= 366, f"the expiry moved {one_year / 86400:.0f} days (want one year)")
    report.check(all(a.status_code in (200, 302) for a in answers), "a replayed renewal got an error page")


def _rate_limit(report: Report, base: str) -> None:
    """More cart additions than the limit, each on a new connection, from one address: counted once."""
    browser = Browser(base, "203.0.113.20")
    browser.get("/")

    def add(_: int) -> int:
        # An empty name: refused by the form after the limit is counted, so no provider call is needed.
        return browser.post("/cart/add/", {"domain_name": ""}).status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = list(pool.map(add, range(CART_TRIES)))
    allowed = sum(1 for s in statuses if s != 429)
    report.note(cart_limit=CART_LIMIT, cart_tries=CART_TRIES, cart_allowed=allowed, cart_limited=statuses.count(429))
    report.check(allowed == CART_LIMIT, f"{allowed} cart additions got through a limit of {CART_LIMIT}")


def _reset_and_codes(
    report: Report, base: str, email_address: str, order_id: int, sink: SmtpSink, canaries: dict[str, str]
) -> None:
    visitor = Browser(base, "203.0.113.30")
    visitor.get("/accounts/password/reset/")
    response = visitor.post("/accounts/password/reset/", {"email": email_address})
    report.check(response.status_code == 302, f"password reset answered {response.status_code}")

    def reset_mail() -> str:
        for message in sink.snapshot()[0]:
            text = _texts(message.data)
            if email_address in message.recipients and "/accounts/password/reset/key/" in text:
                return text
        return ""

    report.check(_wait_for(lambda: bool(reset_mail()), 20), "no password-reset email reached the mail server")
    # allauth's link: /accounts/password/reset/key/<user id in base 36>-<key>/
    match = re.search(r"https?://[^\s]+/accounts/password/reset/key/([0-9a-z]+)-([^/\s]+)/", reset_mail())
    if match is None:
        report.failures.append("the reset email carries no reset link")
        return
    link_path = urllib.parse.urlsplit(match.group(0)).path
    canaries["reset link path"] = link_path
    canaries["reset token"] = match.group(2)
    # The customer opens the link: allauth moves the key into the session; the path must not be logged.
    opened = visitor.get(link_path)
    report.check(opened.status_code == 302, f"the reset link answered {opened.status_code}")
    report.note(reset_link_opened=opened.status_code)

    owner = _sign_in(base, "203.0.113.31", email_address)
    # Revealing the code asks for the password again first (re-authentication), then shows it.
    asked = owner.post(f"/orders/{order_id}/transfer-code/", {})
    where = urllib.parse.urlsplit(asked.headers.get("Location", ""))
    reauthenticate = where.path + (f"?{where.query}" if where.query else "")
    form = owner.get(reauthenticate).text
    # The form carries where to resume (the transfer-code POST, replayed once the password is confirmed).
    answer = owner.post(reauthenticate, {"password": PASSWORD, "next": hidden(form, "next")})
    # The resumed reveal answers with a redirect to a page that shows the code once (post/redirect/get).
    for _ in range(3):
        if answer.status_code not in (301, 302, 303):
            break
        where = urllib.parse.urlsplit(answer.headers.get("Location", ""))
        answer = owner.get(where.path + (f"?{where.query}" if where.query else ""))
    page = answer.text
    code = re.search(r'id="transfer-code"[^>]*>\s*([^<\s]+)', page)
    report.check(code is not None, "the transfer code was not shown")
    if code is not None:
        canaries["transfer code"] = code.group(1)


def _scan(report: Report, logs: list[Path], sink: SmtpSink, canaries: dict[str, str]) -> None:
    messages, transport = sink.snapshot()
    transport_text = "\n".join(transport)
    hits = []
    log_bytes = 0
    for path in logs:
        text = path.read_text(errors="replace")
        log_bytes += len(text)
        hits += [f"{name} in {path.name}" for name, value in canaries.items() if value and value in text]
    hits += [f"{name} in the SMTP transport log" for name, value in canaries.items() if value in transport_text]
    # The reset link goes to its owner only; the key, the password and the codes go in no email.
    for message in messages:
        text = _texts(message.data)
        for name, value in canaries.items():
            if value in text and not (name.startswith("reset") and "/accounts/password/reset/" in text):
                hits.append(f"{name} in an email to {', '.join(message.recipients)}")
    report.note(
        canaries=len(canaries),
        log_bytes_scanned=log_bytes,
        emails_captured=len(messages),
        smtp_log_lines=len(transport),
        canary_hits=len(hits),
    )
    report.check(not hits, "canaries found: " + "; ".join(hits))
    report.check(len(messages) >= 2, f"{len(messages)} emails captured (want the reset and the renewal)")


def main() -> int:
    report = run()
    for name, value in report.numbers.items():
        print(f"{name}: {value}")
    for failure in report.failures:
        print(f"FAIL: {failure}")
    print("prod_like: " + ("FAILED" if report.failures else "OK"))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
