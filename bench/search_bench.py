"""Benchmark of the domain search: storefront time next to the provider's, cached answers, cached throughput.

Usage (from the repository root, after `bin/setup dev`, as `bin/test` does):

    .venv/bin/python bench/search_bench.py [--latency-ms 100] [--samples 40] [--cached-samples 200]
        [--rps-requests 3000] [--rps-threads 8] [--rps-seconds 20] [--cache locmem|redis]

What it does, all on 127.0.0.1 and bounded in count and time:
1. Two temporary SQLite databases, migrated; the sandbox's demo partner seeded; collectstatic. Production
   settings (DEBUG off, manifest static files, request log on).
2. The sandbox project (`sandbox.wsgi`) in its own gunicorn (1 worker, 16 threads), and the storefront in another,
   as in the Procfile (gthread, 2 workers x 16 threads), pointed at the sandbox over HTTP like at the real provider.
3. With the sandbox's latency fault at --latency-ms on MetaSearch, one request at a time, interleaved:
   - provider: the gateway's MetaSearch call for a new term, timed from this process;
   - storefront: the search fragment (`/search/?q=`, HX-Request) for a new term, end to end.
   Overhead = storefront - provider. The storefront's request log gives the same split from the inside.
4. Cached: the fragment for a term already searched, one request at a time.
5. Cached throughput: --rps-threads client threads send --rps-requests cached fragment requests (stopping
   after --rps-seconds); requests per second. The clients share the machine's CPUs with the servers.
Also the storefront workers' CPU time per request (from /proc), which a busy machine does not inflate the way
it inflates wall-clock times. The servers are stopped and the temporary files removed at the end.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
SECRET = "search-bench-only-" + uuid.uuid4().hex
LOAD_BEFORE = os.getloadavg()


def main() -> int:
    args = _arguments()
    tmp = Path(tempfile.mkdtemp(prefix="search-bench-"))
    processes: list[subprocess.Popen] = []
    try:
        cache_url = "locmemcache://search-bench"
        if args.cache == "redis":
            redis, cache_url = _start_redis()
            processes.append(redis)
        sandbox_port, store_port = _free_port(), _free_port()
        sandbox_env = _sandbox_env(tmp / "sandbox.sqlite3")
        sandbox_root = f"http://127.0.0.1:{sandbox_port}"
        store_env = _env(tmp / "storefront.sqlite3") | {
            "PORT": str(store_port),
            "RESELLER_SANDBOX": "false",
            "RESELLER_API_KEY": "test_sandbox_demo",  # the demo partner's key: it opens only the sandbox
            "RESELLER_BASE_URL": sandbox_root,
            "RESELLER_METASEARCH_URL": f"{sandbox_root}/metasearch",
            "RESELLER_PANEL_URL": f"{sandbox_root}/panel",
            "CACHE_URL": cache_url,
        }
        for command in (["migrate", "--noinput"], ["sandbox_seed"]):
            _manage(sandbox_env, command, sandbox=True)
        for command in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
            _manage(store_env, command)
        processes.append(
            _gunicorn(sandbox_env, sandbox_port, workers=1, threads=16, log=tmp / "sandbox.log", app="sandbox.wsgi")
        )
        store = _gunicorn(store_env, store_port, workers=args.workers, threads=args.threads, log=tmp / "store.log")
        processes.append(store)
        _wait_until_up(f"http://127.0.0.1:{sandbox_port}", processes[-2])
        _wait_until_up(f"http://127.0.0.1:{store_port}", store)
        # The cost table, so result rows carry retail prices as in a real shop (one price book per answer).
        _manage(store_env, ["sync_prices"])
        # This process calls the sandbox through the storefront's gateway (its settings), and switches the
        # sandbox's faults with the sandbox's own management shell.
        os.environ.update(store_env)
        _run(args, f"http://127.0.0.1:{store_port}", store, tmp / "store.log", sandbox_env)
    finally:
        for process in reversed(processes):
            _stop(process)
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
    parser.add_argument(
        "--cache",
        choices=("locmem", "redis"),
        default="locmem",
        help="locmem: each worker its own cache (the default CACHE_URL); redis: a throwaway redis-server on a "
        "free port, shared by the workers as in production",
    )
    parser.add_argument("--workers", type=int, default=2, help="storefront gunicorn workers (Procfile: 2)")
    parser.add_argument("--threads", type=int, default=16, help="threads per storefront worker (Procfile: 16)")
    args = parser.parse_args()
    args.samples = max(5, min(args.samples, 500))
    args.cached_samples = max(10, min(args.cached_samples, 5000))
    args.rps_requests = max(100, min(args.rps_requests, 50000))
    args.rps_threads = max(1, min(args.rps_threads, 64))
    args.rps_seconds = max(1.0, min(args.rps_seconds, 120.0))
    args.workers = max(1, min(args.workers, 8))
    args.threads = max(1, min(args.threads, 64))
    return args


def _env(database: Path) -> dict[str, str]:
    # Whatever the shell has, the benchmark configures both servers itself.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RESELLER_", "DATABASE_URL"))}
    env.pop("CACHE_URL", None)
    return env | {
        "DJANGO_SETTINGS_MODULE": "storefront.settings",
        "DJANGO_SECRET_KEY": SECRET,
        "DJANGO_DEBUG": "false",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SECURE_HSTS_SECONDS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"sqlite:///{database}",
        "SEARCH_CACHE_SECONDS": "600",
        "LOG_LEVEL": "INFO",
        # Production refuses to start without a real mail backend; a search sends no email, so none is needed.
        "EMAIL_URL": "dummymail://",
        # Requests come from many customers behind one router, as in production; the per-address search
        # limit then applies per simulated customer (see _customer_headers), not to the whole benchmark.
        "TRUSTED_PROXY_COUNT": "1",
    }


def _sandbox_env(database: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SANDBOX_", "RESELLER_", "DATABASE"))}
    return env | {
        "DJANGO_SETTINGS_MODULE": "sandbox.settings",
        "SANDBOX_DATABASE_URL": f"sqlite:///{database}",
        "SANDBOX_LOG_LEVEL": "WARNING",
    }


@contextmanager
def _sandbox_fault(env: dict[str, str], **fields: object) -> Iterator[None]:
    """Switch a fault on for the sandbox's demo partner, in its own process, and off again."""
    switch = (
        "from sandbox.faults import demo_partner; from sandbox.models import Fault; "
        "Fault.objects.update_or_create(partner=demo_partner(), defaults={fields!r})"
    )
    clear = "from sandbox.models import Fault; Fault.objects.all().delete()"
    _manage(env, ["shell", "-c", switch.format(fields=fields)], sandbox=True)
    try:
        yield
    finally:
        _manage(env, ["shell", "-c", clear], sandbox=True)


def _customer_headers() -> dict[str, str]:
    """An htmx request from one of many customers (198.18.0.0/15 is reserved for benchmarks)."""
    number = random.randrange(1, 65000)
    return {"HX-Request": "true", "X-Forwarded-For": f"198.18.{number // 256}.{number % 256}"}


def _manage(env: dict[str, str], command: list[str], *, sandbox: bool = False) -> None:
    program = ["-m", "sandbox"] if sandbox else ["manage.py"]
    print(f"{' '.join(program)} {' '.join(command)}", file=sys.stderr)
    subprocess.run([PYTHON, *program, *command, "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300)


def _gunicorn(
    env: dict[str, str], port: int, *, workers: int, threads: int, log: Path, app: str = "storefront.wsgi"
) -> subprocess.Popen:
    command = [GUNICORN, app, "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread"]
    command += ["--workers", str(workers), "--threads", str(threads), "--timeout", "30"]
    print(" ".join(command[1:]), file=sys.stderr)
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )


def _start_redis() -> tuple[subprocess.Popen, str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("--cache redis needs redis-server on PATH")
    port = _free_port()
    server = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return server, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.1)
    _stop(server)
    raise SystemExit("redis-server did not start")


def _wait_until_up(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server for {base} exited during start-up")
        try:
            if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{base} did not answer /healthz within 30 s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


def _run(args: argparse.Namespace, base: str, store: subprocess.Popen, log: Path, sandbox_env: dict[str, str]) -> None:
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    # This process's own gateway calls are measured, not logged.
    logging.getLogger("storefront").setLevel(logging.WARNING)
    from storefront.gateway import gateway

    fragment = f"{base}/search/"
    session = requests.Session()
    run = uuid.uuid4().hex[:6]

    def storefront(term: str) -> float:
        started = time.perf_counter()
        response = session.get(fragment, params={"q": term}, headers=_customer_headers(), timeout=10)
        elapsed = time.perf_counter() - started
        if response.status_code != 200 or "result-row" not in response.text:
            raise SystemExit(f"unexpected answer for {term!r}: {response.status_code} {response.text[:500]}")
        return elapsed

    def provider(term: str) -> float:
        started = time.perf_counter()
        gateway().metasearch(search_term=term, autosuggest=True, aisuggest=True)
        return time.perf_counter() - started

    with _sandbox_fault(sandbox_env, latency_ms=args.latency_ms, scope="metasearch"):
        # Warm connections, templates and code paths in every worker (not measured).
        for i in range(8):
            storefront(f"warm{run}{i}")
            provider(f"warmp{run}{i}")

        cpu_before = _cpu_seconds(store)
        provider_times, storefront_times = [], []
        for i in range(args.samples):
            provider_times.append(provider(f"prov{run}{i}"))
            storefront_times.append(storefront(f"shop{run}{i}"))
        cpu_uncached = (_cpu_seconds(store) - cpu_before) / args.samples

        cached_term = f"cached{run}"
        storefront(cached_term)
        # With locmem each worker has its own cache: ask until every worker has the answer (a miss costs
        # the injected latency, so it is easy to tell), then measure.
        streak = 0
        for _ in range(300):
            streak = streak + 1 if storefront(cached_term) < args.latency_ms / 2000 else 0
            if streak >= 30:
                break
        cpu_before = _cpu_seconds(store)
        cached_times = [storefront(cached_term) for _ in range(args.cached_samples)]
        cpu_cached = (_cpu_seconds(store) - cpu_before) / args.cached_samples

        rps, done, errors = _throughput(fragment, cached_term, args)

    ms = 1000
    p50_p, p95_p = _pct(provider_times, 50) * ms, _pct(provider_times, 95) * ms
    p50_s, p95_s = _pct(storefront_times, 50) * ms, _pct(storefront_times, 95) * ms
    c50, c95 = _pct(cached_times, 50) * ms, _pct(cached_times, 95) * ms
    before = ", ".join(f"{value:.1f}" for value in LOAD_BEFORE)
    after = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print()
    print(f"Domain search benchmark on {os.cpu_count()} CPU(s); load average before {before}, after {after}.")
    print(
        f"Storefront: gunicorn gthread {args.workers}x{args.threads}, cache {args.cache}; sandbox in its own "
        f"gunicorn, MetaSearch latency fault {args.latency_ms} ms; loopback HTTP; production settings; SQLite."
    )
    print()
    print(f"{'measurement':<46}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}")
    _line("provider: gateway MetaSearch call", provider_times, p50_p, p95_p)
    _line("storefront: search fragment, uncached", storefront_times, p50_s, p95_s)
    _line("storefront overhead (storefront - provider)", None, p50_s - p50_p, p95_s - p95_p)
    _line("storefront: search fragment, cached", cached_times, c50, c95)
    inside = _request_log(log)
    if inside:
        print()
        print("the same requests seen from inside (the storefront's request log, route /search/):")
        for label, values in inside.items():
            _line(label, values, _pct(values, 50), _pct(values, 95))
    print()
    print("storefront workers' CPU time per request (not inflated by waiting for a busy CPU):")
    print(f"  uncached search fragment {cpu_uncached * ms:.1f} ms; cached {cpu_cached * ms:.1f} ms")
    print()
    print(
        f"cached throughput: {rps:.0f} requests/s ({done} requests, {errors} errors, "
        f"{args.rps_threads} client threads on the same machine)"
    )
    print()
    print(
        f"targets: p50 overhead < 10 ms: {'met' if p50_s - p50_p < 10 else 'NOT met'}; "
        f"cached p50 < 10 ms: {'met' if c50 < 10 else 'NOT met'}"
    )


def _line(label: str, values: list[float] | None, p50: float, p95: float) -> None:
    count = str(len(values)) if values is not None else ""
    print(f"{label:<46}{count:>6}{p50:>10.1f}{p95:>10.1f}")


def _request_log(log: Path) -> dict[str, list[float]]:
    """Timings the storefront logs per request (storefront.requests): total, its provider call, the rest."""
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
    if not total or not cached:
        return {}
    return {
        "  uncached: whole request": total,
        "  uncached: its provider call": provider,
        "  uncached: storefront's own time": own,
        "  cached: whole request (all runs)": cached,
    }


def _cpu_seconds(master: subprocess.Popen) -> float:
    """User + system CPU time of gunicorn's workers so far (Linux /proc; 0 elsewhere)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    try:
        children = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()
        for pid in children:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    except OSError:
        return 0.0
    return total / ticks


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
                ok = session.get(url, params={"q": term}, headers=_customer_headers(), timeout=10).ok
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
