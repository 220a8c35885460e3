"""Benchmark of the domain search: the storefront's own time over the provider's, cached answers, and cached
throughput next to a bare Django view.

Usage (from the repository root, after `bin/setup dev`):

    .venv/bin/python bench/search_bench.py [--cache redis,database] [--latency-ms 50] [--samples 30]
        [--cached-samples 100] [--rps-seconds 8] [--connections 16]

What it does, all on 127.0.0.1 and bounded in count and time:
1. The sandbox project (`sandbox.wsgi`) in its own gunicorn (1 worker, 16 threads), seeded with the demo partner;
   the baseline, a bare Django project (`bench/bare/site.py`: no apps, no middleware, one view rendering a
   20-row template), under the same gunicorn settings as the storefront.
2. For each cache in --cache (`redis`: a throwaway redis-server on a free port, as in production; `database`: the
   embedded default, Django's database cache in the storefront's own SQLite database): the storefront as in the
   Procfile (gthread, 2 workers x 16 threads, production settings, SQLite), pointed at the sandbox over HTTP like
   at the real provider, its cost table synced, and a signed-in customer with 200 domains.
3. With the sandbox's latency fault at --latency-ms on MetaSearch, one request at a time, for each of four kinds
   (anonymous and signed in; the htmx fragment and the full page): a new term (uncached), then the same term
   again (cached). The storefront's own time is its request log's `duration_ms - provider_ms` (in-process), and
   the log's `db_queries` / `db_writes` count the SQL each request ran.
4. Cached throughput: wrk (when on PATH; else Python client threads) sends cached fragment requests from many
   client addresses for --rps-seconds, to the bare view and to the storefront in turn (bare, store, bare, store),
   so that the ratio is taken under the same machine load. The clients share the 2 CPUs with the servers.
Everything is stopped and the temporary files removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
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
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.servers import signed_in_session_script  # noqa: E402 - found through the line above when run as a file

PYTHON = sys.executable
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
SECRET = "search-bench-only-" + uuid.uuid4().hex
LOAD_BEFORE = os.getloadavg()
# The CSRF cookie a browser holds once it has loaded any page (the search box's page sets it), sent with every
# search as a browser does over HTTPS: requests and wrk would not send back a Secure cookie over plain HTTP, and the
# storefront would then draw a new secret for each search, which no customer's search costs.
CSRF_COOKIE = "csrftoken=SearchBenchCsrfSecret0123456789a"
KINDS = ("anonymous fragment", "anonymous page", "signed-in fragment", "signed-in page")

# Goals (issue 29): own time per search at most this (p50, in-process); cached throughput at least this share
# of the bare Django view's, per cache.
OVERHEAD_GOAL_MS = 5.0
RATIO_GOALS = {"redis": 0.60, "database": 0.40, "locmem": 0.60}

SIGNED_IN = signed_in_session_script("bench", 990001, 880000, 200)


def main() -> int:
    args = _arguments()
    tmp = Path(tempfile.mkdtemp(prefix="search-bench-"))
    processes: list[subprocess.Popen] = []
    results: dict[str, Result] = {}
    try:
        sandbox_port, bare_port = _free_port(), _free_port()
        sandbox_env = _sandbox_env(tmp / "sandbox.sqlite3")
        for command in (["migrate", "--noinput"], ["sandbox_seed"]):
            _manage(sandbox_env, command, sandbox=True)
        processes.append(
            _gunicorn(sandbox_env, sandbox_port, workers=1, threads=16, log=tmp / "sandbox.log", app="sandbox.wsgi")
        )
        bare_env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
        bare = _gunicorn(
            bare_env, bare_port, workers=args.workers, threads=args.threads, log=tmp / "bare.log", app="bench.bare.site"
        )
        processes.append(bare)
        _wait_until_up(f"http://127.0.0.1:{sandbox_port}", processes[0])
        _wait_until_up(f"http://127.0.0.1:{bare_port}", bare)
        for cache in args.caches:
            results[cache] = _one_cache(args, cache, tmp, sandbox_port, sandbox_env, f"http://127.0.0.1:{bare_port}")
    finally:
        for process in reversed(processes):
            _stop(process)
        shutil.rmtree(tmp, ignore_errors=True)
    _report(args, results)
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache", default="redis,database", help="comma list of redis, database, locmem")
    parser.add_argument("--latency-ms", type=int, default=50, help="injected provider latency (MetaSearch)")
    parser.add_argument("--samples", type=int, default=30, help="uncached searches per kind")
    parser.add_argument("--cached-samples", type=int, default=100, help="cached searches per kind")
    parser.add_argument("--rps-seconds", type=float, default=8.0, help="length of each throughput run")
    parser.add_argument("--connections", type=int, default=16, help="concurrent client connections (throughput)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of both servers (Procfile: 2)")
    parser.add_argument("--threads", type=int, default=16, help="threads per worker (Procfile: 16)")
    args = parser.parse_args()
    args.caches = [c.strip() for c in args.cache.split(",") if c.strip()]
    if not args.caches or any(c not in RATIO_GOALS for c in args.caches):
        parser.error("--cache takes a comma list of redis, database, locmem")
    args.samples = max(5, min(args.samples, 500))
    args.cached_samples = max(10, min(args.cached_samples, 5000))
    args.rps_seconds = max(1.0, min(args.rps_seconds, 60.0))
    args.connections = max(1, min(args.connections, 64))
    args.workers = max(1, min(args.workers, 8))
    args.threads = max(1, min(args.threads, 64))
    return args


@dataclass
class Result:
    """One cache's measurements."""

    provider: list[float] = field(default_factory=list)  # ms, the gateway's MetaSearch call from this process
    outside: dict[str, list[float]] = field(default_factory=dict)  # ms end to end, uncached, per kind
    own: dict[str, list[float]] = field(default_factory=dict)  # ms in-process minus provider, uncached, per kind
    cached: dict[str, list[float]] = field(default_factory=dict)  # ms in-process, cached, per kind
    cached_outside: list[float] = field(default_factory=list)  # ms end to end, cached anonymous fragment
    queries: dict[str, tuple[int, int]] = field(default_factory=dict)  # cached: (statements, writes) max per kind
    store_rps: list[float] = field(default_factory=list)
    bare_rps: list[float] = field(default_factory=list)
    errors: int = 0
    client: str = ""


def _one_cache(
    args: argparse.Namespace, cache: str, tmp: Path, sandbox_port: int, sandbox_env: dict[str, str], bare: str
) -> Result:
    processes: list[subprocess.Popen] = []
    try:
        if cache == "redis":
            redis, cache_url = _start_redis()
            processes.append(redis)
        elif cache == "database":
            cache_url = "dbcache://storefront_cache"
        else:
            cache_url = "locmemcache://search-bench"
        store_port = _free_port()
        sandbox_root = f"http://127.0.0.1:{sandbox_port}"
        store_env = _env(tmp / f"storefront-{cache}.sqlite3") | {
            "PORT": str(store_port),
            "RESELLER_SANDBOX": "false",
            "RESELLER_API_KEY": "test_sandbox_demo",  # the demo partner's key: it opens only the sandbox
            "RESELLER_BASE_URL": sandbox_root,
            "RESELLER_METASEARCH_URL": f"{sandbox_root}/metasearch",
            "RESELLER_PANEL_URL": f"{sandbox_root}/panel",
            "CACHE_URL": cache_url,
        }
        for command in (["migrate", "--noinput"], ["createcachetable"], ["collectstatic", "--noinput"]):
            _manage(store_env, command)
        # The cost table, so result rows carry retail prices as in a real shop.
        _manage(store_env, ["sync_prices"])
        session_key = _manage(store_env, ["shell", "-c", SIGNED_IN], output=True).strip().splitlines()[-1]
        log = tmp / f"store-{cache}.log"
        store = _gunicorn(store_env, store_port, workers=args.workers, threads=args.threads, log=log)
        processes.append(store)
        _wait_until_up(f"http://127.0.0.1:{store_port}", store)
        # This process calls the sandbox through the storefront's gateway (its settings, read once), with a cache
        # of its own: the servers' caches come and go with each run.
        os.environ.update(store_env | {"CACHE_URL": "locmemcache://bench-client", "RESELLER_SEARCH_RATE_LIMIT": "0"})
        return _measure(args, cache, f"http://127.0.0.1:{store_port}", bare, log, sandbox_env, session_key)
    finally:
        for process in reversed(processes):
            _stop(process)


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
        # Production refuses to start without its public address (email links); a search sends none.
        "SITE_URL": "http://127.0.0.1",
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


def _address() -> str:
    """One of many customers' addresses (198.18.0.0/15 is reserved for benchmarks)."""
    number = random.randrange(1, 65000)
    return f"198.18.{number // 256}.{number % 256}"


def _manage(env: dict[str, str], command: list[str], *, sandbox: bool = False, output: bool = False) -> str:
    program = ["-m", "sandbox"] if sandbox else ["manage.py"]
    print(f"{' '.join(program)} {command[0]}", file=sys.stderr)
    done = subprocess.run(
        [PYTHON, *program, *command, "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300, capture_output=output
    )
    return done.stdout.decode() if output else ""


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


class _RequestLog:
    """The storefront's request log lines (storefront.requests), read as they are appended."""

    def __init__(self, path: Path) -> None:
        self.file = path.open(errors="replace")
        self.file.seek(0, os.SEEK_END)
        # The end of the file as last read when it was not the end of a line: the process's log thread may be
        # writing the line just then (a line across a page boundary can be seen half written).
        self.partial = ""

    def search_line(self) -> dict:
        """The log line of the search request just answered (queued before its answer was sent, written by the
        process's log thread: storefront/observability/log_handlers.py)."""
        for _ in range(200):
            *lines, self.partial = (self.partial + self.file.read()).split("\n")
            for line in lines:
                _, marker, payload = line.partition("storefront.requests ")
                if not marker:
                    payload = line
                try:
                    entry = json.loads(payload)
                except ValueError:
                    continue
                if entry.get("route") == "/search/":
                    return entry
            time.sleep(0.005)
        raise SystemExit("no request log line for a search")


def _measure(
    args: argparse.Namespace,
    cache: str,
    base: str,
    bare: str,
    log_path: Path,
    sandbox_env: dict[str, str],
    session_key: str,
) -> Result:
    import django

    sys.path.insert(0, str(ROOT))
    if not getattr(_measure, "set_up", False):
        django.setup()
        _measure.set_up = True  # type: ignore[attr-defined]
    import logging

    # This process's own gateway calls are measured, not logged.
    logging.getLogger("storefront").setLevel(logging.WARNING)
    from storefront.gateway import gateway

    result = Result()
    log = _RequestLog(log_path)
    session = requests.Session()
    run = uuid.uuid4().hex[:6]
    url = f"{base}/search/"

    def storefront(kind: str, term: str) -> tuple[float, dict]:
        headers = {"X-Forwarded-For": _address()}
        if kind.endswith("fragment"):
            headers["HX-Request"] = "true"
        headers["Cookie"] = CSRF_COOKIE + (f"; sessionid={session_key}" if kind.startswith("signed-in") else "")
        started = time.perf_counter()
        response = session.get(url, params={"q": term}, headers=headers, timeout=10)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200 or "result-row" not in response.text:
            raise SystemExit(f"unexpected answer for {term!r}: {response.status_code} {response.text[:500]}")
        if kind.startswith("signed-in") and "Sign out" not in response.text and kind.endswith("page"):
            raise SystemExit("the signed-in page is not signed in")
        return elapsed, log.search_line()

    def provider(term: str) -> float:
        started = time.perf_counter()
        gateway().metasearch(search_term=term, autosuggest=True, aisuggest=False)
        return (time.perf_counter() - started) * 1000

    with _sandbox_fault(sandbox_env, latency_ms=args.latency_ms, scope="metasearch"):
        for i in range(4):  # warm connections, templates and code paths in every worker (not measured)
            for kind in KINDS:
                storefront(kind, f"warm{run}{i}{kind[0]}")
            provider(f"warmp{run}{i}")
        result.own = {kind: [] for kind in KINDS}
        result.outside = {kind: [] for kind in KINDS}
        result.cached = {kind: [] for kind in KINDS}
        for i in range(args.samples):
            result.provider.append(provider(f"prov{run}{i}"))
            for kind in KINDS:
                elapsed, line = storefront(kind, f"shop{run}{i}{kind[0]}{kind[-1]}")
                result.outside[kind].append(elapsed)
                if line.get("provider_calls") == 1:
                    result.own[kind].append(line["duration_ms"] - line["provider_ms"])
        cached_term = f"cached{run}"
        for kind in KINDS:
            statements = writes = 0
            storefront(kind, cached_term)  # the first one asks the provider
            for _ in range(args.cached_samples):
                elapsed, line = storefront(kind, cached_term)
                if line.get("provider_calls") != 0:
                    continue  # with locmem, another worker's first search for the term
                result.cached[kind].append(line["duration_ms"])
                statements, writes = max(statements, line.get("db_queries", 0)), max(writes, line.get("db_writes", 0))
                if kind == "anonymous fragment":
                    result.cached_outside.append(elapsed)
            result.queries[kind] = (statements, writes)
        for _ in range(2):
            rps, errors, result.client = _throughput(f"{bare}/search/", cached_term, args)
            result.bare_rps.append(rps)
            rps, store_errors, _ = _throughput(url, cached_term, args)
            result.store_rps.append(rps)
            result.errors += errors + store_errors
    print(f"{cache}: measured", file=sys.stderr)
    return result


WRK_SCRIPT = """
wrk.headers["HX-Request"] = "true"
wrk.headers["Cookie"] = "CSRF_COOKIE"
request = function()
  local n = math.random(1, 65000)
  wrk.headers["X-Forwarded-For"] = "198.18." .. math.floor(n / 256) .. "." .. (n % 256)
  return wrk.format(nil)
end
"""


def _throughput(url: str, term: str, args: argparse.Namespace) -> tuple[float, int, str]:
    """Requests per second (and errors) of cached fragment requests from many addresses, for --rps-seconds."""
    target = f"{url}?q={term}"
    wrk = shutil.which("wrk")
    if wrk:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
            script.write(WRK_SCRIPT.replace("CSRF_COOKIE", CSRF_COOKIE))
        try:
            done = subprocess.run(
                [
                    wrk,
                    "-t",
                    "2",
                    "-c",
                    str(args.connections),
                    "-d",
                    f"{args.rps_seconds:.0f}s",
                    "-s",
                    script.name,
                    target,
                ],
                capture_output=True,
                text=True,
                timeout=args.rps_seconds + 30,
                check=True,
            )
        finally:
            os.unlink(script.name)
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", done.stdout).group(1))  # type: ignore[union-attr]
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", done.stdout)
        failed = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", done.stdout)
        errors = (int(bad.group(1)) if bad else 0) + (sum(int(g) for g in failed.groups()) if failed else 0)
        return rps, errors, f"wrk, {args.connections} connections"
    return (*_python_throughput(target, args), f"Python client threads, {args.connections} connections")


def _python_throughput(target: str, args: argparse.Namespace) -> tuple[float, int]:
    lock = threading.Lock()
    done = errors = 0
    deadline = time.monotonic() + args.rps_seconds

    def client() -> None:
        nonlocal done, errors
        session = requests.Session()
        while time.monotonic() < deadline:
            try:
                headers = {"HX-Request": "true", "X-Forwarded-For": _address(), "Cookie": CSRF_COOKIE}
                ok = session.get(target, headers=headers, timeout=10).ok
            except requests.RequestException:
                ok = False
            with lock:
                done += 1
                errors += not ok

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.connections) as pool:
        for _ in range(args.connections):
            pool.submit(client)
    return done / (time.perf_counter() - started), errors


def _report(args: argparse.Namespace, results: dict[str, Result]) -> None:
    before = ", ".join(f"{value:.1f}" for value in LOAD_BEFORE)
    after = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print()
    print(f"Domain search benchmark on {os.cpu_count()} CPU(s); load average before {before}, after {after}.")
    print(
        f"Storefront and bare Django: gunicorn gthread {args.workers}x{args.threads}, production settings, SQLite; "
        f"sandbox in its own gunicorn, MetaSearch latency fault {args.latency_ms} ms; loopback HTTP."
    )
    goals: list[tuple[str, bool]] = []
    for cache, result in results.items():
        print()
        print(f"== cache: {cache}")
        print(f"{'measurement (ms)':<58}{'n':>5}{'p50':>8}{'p95':>8}")
        _line("provider: gateway MetaSearch call (from outside)", result.provider)
        for kind in KINDS:
            _line(f"uncached {kind}, end to end", result.outside[kind])
        for kind in KINDS:
            own = result.own[kind]
            _line(f"uncached {kind}, storefront's own time (in-process)", own)
            goals.append(
                (f"{cache}: own time p50 <= {OVERHEAD_GOAL_MS:.0f} ms, {kind}", _pct(own, 50) <= OVERHEAD_GOAL_MS)
            )
        for kind in KINDS:
            _line(f"cached {kind}, in-process", result.cached[kind])
        _line("cached anonymous fragment, end to end", result.cached_outside)
        print()
        for kind in KINDS:
            statements, writes = result.queries[kind]
            print(f"cached {kind}: at most {statements} SQL statements, {writes} writes")
            goals.append((f"{cache}: no SQL write on a cached search, {kind}", writes == 0))
        store, bare = statistics.mean(result.store_rps), statistics.mean(result.bare_rps)
        ratio = store / bare if bare else 0.0
        print()
        print(
            f"cached fragment throughput ({result.client}, {args.rps_seconds:.0f} s per run, two runs each, "
            f"alternating): storefront {store:.0f} requests/s, bare Django 20-row view {bare:.0f} requests/s, "
            f"ratio {ratio:.0%} ({result.errors} errors)"
        )
        goal = RATIO_GOALS[cache]
        goals.append((f"{cache}: cached search >= {goal:.0%} of bare Django", ratio >= goal and not result.errors))
    print()
    print("goals:")
    for label, met in goals:
        print(f"  {'met    ' if met else 'NOT met'}  {label}")


def _line(label: str, values: list[float]) -> None:
    if not values:
        print(f"{label:<58}{0:>5}{'-':>8}{'-':>8}")
        return
    print(f"{label:<58}{len(values):>5}{_pct(values, 50):>8.1f}{_pct(values, 95):>8.1f}")


def _pct(values: list[float], percentile: int) -> float:
    if not values:
        return float("inf")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[percentile - 1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    sys.exit(main())
