"""Start the sandbox provider and the storefront as two separate gunicorn servers on loopback, for benchmarks.

The sandbox is a project of its own (`sandbox.wsgi`); the storefront reaches it over HTTP on its own port,
exactly as it would reach the real provider. Each gets its own SQLite database in a temporary folder.
"""

from __future__ import annotations

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


def _sandbox_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SANDBOX_", "RESELLER_", "DATABASE"))}
    env.update(
        DJANGO_SETTINGS_MODULE="sandbox.settings",
        SANDBOX_DATABASE_URL=_database_url(folder, "sandbox"),
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
