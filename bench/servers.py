"""Start the sandbox provider and the storefront as two separate gunicorn servers on loopback, for benchmarks.

The sandbox is a project of its own (`sandbox.wsgi`); the storefront reaches it over HTTP on its own port,
exactly as it would reach the real provider. Each gets its own SQLite database in a temporary folder.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SECRET = "benchmark-only-secret-key-" + "b" * 40
# The sandbox is a project of its own: its manage entry point and settings.
SANDBOX = ("-m", "sandbox")


@dataclass
class Servers:
    storefront: str
    sandbox: str
    sandbox_env: dict[str, str]
    store_env: dict[str, str]
    # The storefront's gunicorn arbiter: its children are the web workers (bench/memory.py reads their memory).
    store_pid: int = 0

    def sandbox_manage(self, *args: str) -> str:
        """Run one of the sandbox's management commands (to switch faults on and off)."""
        result = subprocess.run(
            [PYTHON, *SANDBOX, *args], cwd=ROOT, env=self.sandbox_env, capture_output=True, text=True, check=True
        )
        return result.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def signed_in_session_script(username: str, customer_id: int, first_order_id: int, orders: int) -> str:
    """A `manage.py shell -c` script that makes a customer owning `orders` domains and prints a signed-in session
    key for them (the cookie the benchmarks send), made as a sign-in makes it."""
    return f"""
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from accounts.models import Customer
from domains.models import Order
user = get_user_model().objects.create_user(username="{username}", email="{username}@example.com", password=None)
customer = Customer.objects.create(
    user=user, customer_id={customer_id}, name="{username.title()} Customer", address="1 Road", city="Town", state="CA",
    country="US", zipcode="94000", country_code="+1", phone="5555555555", language="en")
Order.objects.bulk_create([
    Order(order_id={first_order_id} + i, customer=customer, domain_name=f"{username}owned{{i}}.com")
    for i in range({orders})
])
session = SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = "allauth.account.auth_backends.AuthenticationBackend"  # what a sign-in stores
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session["accounts:language-saved"] = "en"
session.create()
print(session.session_key)
"""


def _database_url(folder: Path, name: str) -> str:
    """PostgreSQL (as in production) when BENCH_POSTGRES_URL's server answers, else a SQLite file."""
    server = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432")
    try:
        import psycopg

        with psycopg.connect(f"{server}/postgres", autocommit=True, connect_timeout=2) as connection:
            database = f"storefront_bench_{name}"
            connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{database}"')
        return f"{server}/{database}"
    except Exception:  # noqa: BLE001 - any failure to reach PostgreSQL means: use SQLite
        return f"sqlite:///{folder / name}.sqlite3"


def _cache_url(folder: Path) -> str:
    """Redis (as in production: atomic counters shared by every process) when it answers, else files."""
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return "rediscache://127.0.0.1:6379/7"
    except OSError:
        return f"filecache://{folder / 'cache'}"


def _base_env(folder: Path, name: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RESELLER_", "DATABASE_URL"))}
    env.update(
        DJANGO_SETTINGS_MODULE="storefront.settings",
        DJANGO_SECRET_KEY=SECRET,
        DJANGO_DEBUG="false",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=_database_url(folder, name),
        LOG_LEVEL="WARNING",
    )
    return env


def _sandbox_env(folder: Path, database_url: str = "") -> dict[str, str]:
    """The sandbox's environment; its database `database_url`, else as `_database_url` chooses (a PostgreSQL
    database made afresh when the server answers)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SANDBOX_", "RESELLER_", "DATABASE"))}
    env.update(
        DJANGO_SETTINGS_MODULE="sandbox.settings",
        SANDBOX_DATABASE_URL=database_url or _database_url(folder, "sandbox"),
        SANDBOX_LOG_LEVEL="WARNING",
    )
    return env


def _wait_until_up(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def _manage(env: dict[str, str], *args: str, program: tuple[str, ...] = ("manage.py",)) -> None:
    subprocess.run([PYTHON, *program, *args], cwd=ROOT, env=env, check=True, capture_output=True)


# The sandbox's database migrated and seeded in one process (each Django start costs about a second of CPU).
_SANDBOX_PREPARE = (
    "from django.core.management import call_command as c; c('migrate', interactive=False); c('sandbox_seed')"
)


def sandbox_prepare(env: dict[str, str]) -> subprocess.Popen:
    """Starts migrating and seeding the sandbox's database, and returns at once: the caller prepares the
    storefront meanwhile (the two share nothing) and waits with `finished`."""
    return subprocess.Popen(
        [PYTHON, *SANDBOX, "shell", "-c", _SANDBOX_PREPARE],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finished(process: subprocess.Popen) -> None:
    """Waits for a process started by `sandbox_prepare`; raises as `subprocess.run(check=True)` would."""
    out, err = process.communicate()
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, process.args, out, err)


# Set by the test session that already collected the static files into STATIC_ROOT (with production's storage):
# collectstatic's hashing and compression is about ten seconds of CPU, the same files each time.
STATIC_COLLECTED = "BENCH_STATIC_COLLECTED"


def collect_static_once(run_id: str) -> dict[str, str]:
    """Collects the static files as the build does (production's settings and storage), once for the test run
    `run_id` whichever of its pytest workers asks first (the others wait for it, then find it done: two collecting
    into the one STATIC_ROOT at once would write over each other's files), and returns this process's environment
    saying so, for the whole-stack runs started with it (tests/storefront/conftest.py)."""
    state = Path(tempfile.gettempdir()) / f"storefront-static-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"
    with (state.with_suffix(".lock")).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (state.exists() and state.read_text() == run_id):
            _collect_static()
            state.write_text(run_id)
    return {**os.environ, STATIC_COLLECTED: "1"}


def _collect_static() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RESELLER_", "STRIPE_"))}
    for name in ("DATABASE_URL", "CACHE_URL", "EMAIL_URL", "SITE_URL", "PAYMENTS_DISABLED"):
        env.pop(name, None)
    with tempfile.TemporaryDirectory(prefix="storefront-static-") as tmp:
        env |= {
            "DJANGO_SETTINGS_MODULE": "storefront.settings",
            "DJANGO_SECRET_KEY": SECRET,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": f"sqlite:///{tmp}/unused.sqlite3",  # collectstatic reads no table
            "SITE_URL": "http://127.0.0.1",
            "EMAIL_URL": "smtp://127.0.0.1:25",
            "RESELLER_SANDBOX": "false",
            "RESELLER_API_KEY": "test_sandbox_demo",
            "RESELLER_BASE_URL": "http://127.0.0.1",
            "RESELLER_METASEARCH_URL": "http://127.0.0.1/metasearch",
            "RESELLER_PANEL_URL": "http://127.0.0.1/panel",
            "PAYMENTS_DISABLED": "true",
        }
        _manage(env, "collectstatic", "--noinput")


def collect_static(env: dict[str, str]) -> None:
    """The build step before the Procfile's processes start (production serves static files from the manifest),
    unless this run's static files are already collected."""
    if os.environ.get(STATIC_COLLECTED) != "1":
        _manage(env, "collectstatic", "--noinput")


@contextmanager
def running(*, storefront_workers: int = 2, storefront_threads: int = 16, cache_url: str = "") -> Iterator[Servers]:
    with tempfile.TemporaryDirectory(prefix="storefront-bench-") as tmp:
        folder = Path(tmp)
        sandbox_port, store_port = free_port(), free_port()
        sandbox_env = _sandbox_env(folder)
        store_env = _base_env(folder, "storefront") | {
            "PORT": str(store_port),
            # Production refuses to start without its public address: on one machine, loopback is it.
            "SITE_URL": f"http://127.0.0.1:{store_port}",
            "RESELLER_SANDBOX": "false",
            "RESELLER_API_KEY": "test_sandbox_demo",
            "RESELLER_BASE_URL": f"http://127.0.0.1:{sandbox_port}",
            "RESELLER_METASEARCH_URL": f"http://127.0.0.1:{sandbox_port}/metasearch",
            "RESELLER_PANEL_URL": f"http://127.0.0.1:{sandbox_port}/panel",
            "CACHE_URL": cache_url or _cache_url(folder),
            "TRUSTED_PROXY_COUNT": "1",
            "EMAIL_URL": "dummymail://",  # confirmation emails are built, not printed
            # The benchmarks measure the store; a payment page would be Stripe's (or its sandbox's) time.
            "PAYMENTS_DISABLED": "true",
        }
        _manage(sandbox_env, "migrate", "--noinput", program=SANDBOX)
        _manage(sandbox_env, "sandbox_seed", program=SANDBOX)
        _manage(store_env, "migrate", "--noinput")
        _manage(store_env, "collectstatic", "--noinput")
        gunicorn = [PYTHON, "-m", "gunicorn", "--worker-class", "gthread", "--log-level", "warning"]
        sandbox = subprocess.Popen(
            [*gunicorn, "sandbox.wsgi", "--bind", f"127.0.0.1:{sandbox_port}", "--workers", "1", "--threads", "16"],
            cwd=ROOT,
            env=sandbox_env,
        )
        store = subprocess.Popen(
            [
                *gunicorn,
                "storefront.wsgi",
                "--bind",
                f"127.0.0.1:{store_port}",
                "--workers",
                str(storefront_workers),
                "--threads",
                str(storefront_threads),
            ],
            cwd=ROOT,
            env=store_env,
        )
        try:
            _wait_until_up(f"http://127.0.0.1:{sandbox_port}")
            _wait_until_up(f"http://127.0.0.1:{store_port}")
            _manage(store_env, "sync_prices")  # retail prices, as a shop has them once its first sync ran
            print(f"databases: {store_env['DATABASE_URL']} and {sandbox_env['SANDBOX_DATABASE_URL']}")
            print(f"cache: {store_env['CACHE_URL']}")
            yield Servers(
                f"http://127.0.0.1:{store_port}",
                f"http://127.0.0.1:{sandbox_port}",
                sandbox_env,
                store_env,
                store_pid=store.pid,
            )
        finally:
            for process in (store, sandbox):
                process.terminate()
            for process in (store, sandbox):
                process.wait(timeout=20)
