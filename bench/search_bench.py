"""Benchmark of the domain search: storefront time next to the provider's, cached answers, cached throughput.

Usage (from the repository root, after `bin/setup dev` or `bin/test`'s setup):

    .venv/bin/python bench/search_bench.py [--latency-ms 100] [--samples 40] [--cached-samples 200]
                                           [--rps-requests 3000] [--rps-threads 8] [--rps-seconds 20]

What it does, all on loopback and bounded in count and time:
1. A fresh SQLite database in a temporary directory, migrated, with the sandbox's demo partner seeded, and
   collectstatic (production settings: DEBUG off, manifest static files).
2. gunicorn as in the Procfile (gthread, 2 workers, 8 threads) on a free 127.0.0.1 port, serving the storefront
   and the built-in sandbox it calls over HTTP.
3. With the sandbox's latency fault at --latency-ms on MetaSearch:
   - provider: the gateway's MetaSearch call timed from this process (new terms, never cached);
   - storefront: the search fragment (`/search/?q=` with HX-Request) for new terms, end to end;
   the two interleaved, one request at a time; overhead = storefront p50 - provider p50.
4. Cached: the fragment for an already searched term, one at a time (p50, p95).
5. Cached throughput: --rps-threads client threads send --rps-requests cached fragment requests (or stop after
   --rps-seconds); requests per second. Client and server share the machine's cores.
gunicorn is stopped and the temporary directory removed at the end, whatever happens.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def main() -> int:
    args = _arguments()
    sys.path.insert(0, str(ROOT))
    tmp = Path(tempfile.mkdtemp(prefix="search-bench-"))
    port = _free_port()
    env = _environment(tmp, port)
    # Whatever the shell has, the benchmark runs against the built-in sandbox at its default addresses.
    for name in ("RESELLER_API_KEY", "RESELLER_BASE_URL", "RESELLER_METASEARCH_URL", "RESELLER_PANEL_URL"):
        os.environ.pop(name, None)
    os.environ.update(env)
    server: subprocess.Popen | None = None
    try:
        _prepare(env)
        server = _start_gunicorn(env, port, tmp, args)
        base = f"http://127.0.0.1:{port}"
        _wait_until_up(base, server)
        _report(args, base, tmp / "gunicorn.log")
    finally:
        if server is not None:
            _stop(server)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--latency-ms", type=int, default=100, help="injected provider latency (MetaSearch)")
    parser.add_argument("--samples", type=int, default=40, help="uncached searches, and as many provider calls")
    parser.add_argument("--cached-samples", type=int, default=200, help="sequential cached searches")
    parser.add_argument("--rps-requests", type=int, default=3000, help="cached searches for the throughput run")
    parser.add_argument("--rps-threads", type=int, default=8, help="client threads for the throughput run")
    parser.add_argument("--rps-seconds", type=float, default=20.0, help="time limit of the throughput run")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (Procfile default 2)")
    parser.add_argument("--threads", type=int, default=8, help="gunicorn threads per worker (Procfile default 8)")
    args = parser.parse_args()
    args.samples = max(5, min(args.samples, 500))
    args.cached_samples = max(10, min(args.cached_samples, 5000))
    args.rps_requests = max(100, min(args.rps_requests, 50000))
    args.rps_threads = max(1, min(args.rps_threads, 64))
    args.rps_seconds = max(1.0, min(args.rps_seconds, 120.0))
    return args


def _environment(tmp: Path, port: int) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "storefront.settings",
        "DJANGO_SECRET_KEY": "search-bench-" + uuid.uuid4().hex,
        "DJANGO_DEBUG": "false",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SECURE_HSTS_SECONDS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}",
        "PORT": str(port),
        "RESELLER_SANDBOX": "true",
        "CACHE_URL": "locmemcache://search-bench",
        "SEARCH_CACHE_SECONDS": "600",
    }


def _prepare(env: dict[str, str]) -> None:
    full_env = {**os.environ, **env}
    for command in (["migrate", "--noinput"], ["sandbox_seed"], ["collectstatic", "--noinput"]):
        print(f"manage.py {' '.join(command)}", file=sys.stderr)
        subprocess.run(  # noqa: S603 - our own manage.py with fixed arguments
            [PYTHON, "manage.py", *command, "-v", "0"], cwd=ROOT, env=full_env, check=True, timeout=300
        )


def _start_gunicorn(env: dict[str, str], port: int, tmp: Path, args: argparse.Namespace) -> subprocess.Popen:
    gunicorn = Path(PYTHON).with_name("gunicorn")
    log = (tmp / "gunicorn.log").open("w")
    command = [
        str(gunicorn),
        "storefront.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--worker-class",
        "gthread",
        "--workers",
        str(args.workers),
        "--threads",
        str(args.threads),
        "--timeout",
        "30",
    ]
    print(" ".join(command[1:]), file=sys.stderr)
    return subprocess.Popen(  # noqa: S603 - gunicorn from our venv, fixed arguments
        command, cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def _wait_until_up(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("gunicorn exited during start-up")
        try:
            if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz within 30 s")


def _stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=5)


def _report(args: argparse.Namespace, base: str, log: Path) -> None:
    import django

    django.setup()
    # This process's own gateway calls are measured, not logged.
    logging.getLogger("storefront").setLevel(logging.WARNING)
    from sandbox.faults import inject
    from storefront.gateway import gateway

    fragment = f"{base}/search/"
    htmx = {"HX-Request": "true"}
    session = requests.Session()
    run = uuid.uuid4().hex[:6]

    def storefront(term: str) -> float:
        started = time.perf_counter()
        response = session.get(fragment, params={"q": term}, headers=htmx, timeout=10)
        elapsed = time.perf_counter() - started
        if response.status_code != 200 or "result-row" not in response.text:
            raise SystemExit(f"unexpected answer for {term!r}: {response.status_code} {response.text[:800]}")
        return elapsed

    def provider(term: str) -> float:
        started = time.perf_counter()
        gateway().metasearch(search_term=term, autosuggest=True, aisuggest=True)
        return time.perf_counter() - started

    with inject(latency_ms=args.latency_ms, scope="metasearch"):
        # Warm both workers' connections, templates and code paths (not measured).
        for i in range(6):
            storefront(f"warm{run}{i}")
            provider(f"warmp{run}{i}")

        provider_times, storefront_times = [], []
        for i in range(args.samples):
            provider_times.append(provider(f"prov{run}{i}"))
            storefront_times.append(storefront(f"shop{run}{i}"))

        cached_term = f"cached{run}"
        storefront(cached_term)
        # Each gunicorn worker has its own in-memory cache: ask until both have the answer (a miss costs
        # the injected latency, so it is easy to tell), then measure.
        streak = 0
        for _ in range(200):
            streak = streak + 1 if storefront(cached_term) < args.latency_ms / 2000 else 0
            if streak >= 20:
                break
        cached_times = [storefront(cached_term) for _ in range(args.cached_samples)]

        rps, done, errors = _throughput(fragment, cached_term, args)

    ms = 1000
    p50_p, p95_p = _pct(provider_times, 50) * ms, _pct(provider_times, 95) * ms
    p50_s, p95_s = _pct(storefront_times, 50) * ms, _pct(storefront_times, 95) * ms
    print()
    print(f"Domain search benchmark: gunicorn gthread {args.workers}x{args.threads} on {os.cpu_count()} CPU(s),")
    print(f"sandbox MetaSearch latency fault {args.latency_ms} ms, loopback HTTP, production settings, SQLite.")
    print()
    print(f"{'measurement':<42}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}")
    print(f"{'provider: gateway MetaSearch call':<42}{len(provider_times):>6}{p50_p:>10.1f}{p95_p:>10.1f}")
    print(f"{'storefront: search fragment, uncached':<42}{len(storefront_times):>6}{p50_s:>10.1f}{p95_s:>10.1f}")
    print(f"{'storefront overhead (storefront - provider)':<42}{'':>6}{p50_s - p50_p:>10.1f}{p95_s - p95_p:>10.1f}")
    c50, c95 = _pct(cached_times, 50) * ms, _pct(cached_times, 95) * ms
    print(f"{'storefront: search fragment, cached':<42}{len(cached_times):>6}{c50:>10.1f}{c95:>10.1f}")
    server = _server_side(log)
    if server:
        print()
        print("server side, from the storefront's request log (route /search/):")
        for label, values in server.items():
            print(f"  {label:<40}{len(values):>6}{_pct(values, 50):>10.1f}{_pct(values, 95):>10.1f}")
    print()
    print(
        f"cached throughput: {rps:.0f} requests/s ({done} requests, {errors} errors, "
        f"{args.rps_threads} client threads on the same machine)"
    )
    print()
    print(f"targets: p50 overhead < 10 ms: {'met' if p50_s - p50_p < 10 else 'NOT met'}; ", end="")
    print(f"cached p50 < 10 ms: {'met' if c50 < 10 else 'NOT met'}")


def _server_side(log: Path) -> dict[str, list[float]]:
    """Per-request timings the storefront logs (storefront.requests): total, provider share, and the rest."""
    total, provider, own, cached = [], [], [], []
    for line in log.read_text(errors="replace").splitlines():
        _, marker, payload = line.partition("storefront.requests ")
        if not marker:
            continue
        try:
            entry = json.loads(payload)
        except ValueError:
            continue
        if entry.get("route") != "/search/" or entry.get("status") != 200:
            continue
        if entry.get("provider_calls") == 1:
            total.append(entry["duration_ms"])
            provider.append(entry["provider_ms"])
            own.append(entry["duration_ms"] - entry["provider_ms"])
        elif entry.get("provider_calls") == 0:
            cached.append(entry["duration_ms"])
    if not total:
        return {}
    return {
        "uncached request, total": total,
        "its provider call": provider,
        "storefront's own time (total - provider)": own,
        "cached request": cached,
    }


def _throughput(url: str, term: str, args: argparse.Namespace) -> tuple[float, int, int]:
    remaining = args.rps_requests
    lock = threading.Lock()
    done = errors = 0
    deadline = time.monotonic() + args.rps_seconds

    def client() -> None:
        nonlocal remaining, done, errors
        session = requests.Session()
        while time.monotonic() < deadline:
            with lock:
                if remaining <= 0:
                    return
                remaining -= 1
            try:
                ok = session.get(url, params={"q": term}, headers={"HX-Request": "true"}, timeout=10).ok
            except requests.RequestException:
                ok = False
            with lock:
                done += 1
                errors += not ok

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.rps_threads) as pool:
        for _ in range(args.rps_threads):
            pool.submit(client)
    elapsed = time.perf_counter() - started
    return done / elapsed, done, errors


def _pct(values: list[float], percentile: int) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[percentile - 1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    sys.exit(main())
