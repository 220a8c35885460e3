"""How much memory a web worker holds once it has served the main pages (issue 41, item 4; goal: at most 110 MB).

Usage (from the repository root, after `bin/setup dev`):

    .venv/bin/python bench/memory.py [--rounds 20] [--modules] [--api]

What it does, all on 127.0.0.1:
1. The sandbox and the storefront as two gunicorn servers (bench/servers.py: production settings, the Procfile's
   web command: gthread, 2 workers x 16 threads).
2. Warm-up: every page a customer meets on the way to buying and managing a domain, anonymous (home, search as a
   page and as typed fragments, AI ideas, cart, sign-in, sign-up, password reset, the legal pages, health) and signed
   in (orders, account, billing, cart, search), --rounds times each on new connections so both workers serve them.
3. Prints each web worker's resident memory (VmRSS, what the issue measures), its proportional share (Pss: the
   pages it shares with the other worker counted half) and its own (private) pages, from /proc, and the goal.
   With --modules, also what a worker has imported, by top-level package, counted in one process of the same
   settings (the URLs loaded, as gunicorn.conf.py's post_worker_init does).
4. With --api, then the staff API (/api/v1/, with a key made for it) --rounds times, and each worker's figures again:
   a worker loads the API (django-ninja, pydantic) only once it serves a request there (reseller_api/middleware.py).
The PDF and e-invoice downloads are not part of the warm-up: a worker imports WeasyPrint and Factur-X only when
one is asked for (billing/views.py), and holds them from then on.
"""

from __future__ import annotations

import argparse
import random
import string
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.servers import PYTHON, ROOT, Servers, running, signed_in_session_script

GOAL_MB = 110
CSRF_COOKIE = "csrftoken=MemoryBenchCsrfSecret0123456789ab"
HTMX = {"HX-Request": "true"}

SIGNED_IN = signed_in_session_script("memory", 990002, 870000, 50)

API_KEY = """
from reseller_api.keys import api_key_issue
from reseller_api.models import ApiKey
print(api_key_issue(key=ApiKey(name="Memory bench")).secret)
"""
API_PAGES = ("/api/v1/customers", "/api/v1/domains?limit=20", "/api/v1/openapi.json")

ANONYMOUS = (
    "/",
    "/search/?q={word}",
    ("/search/?q={word}x", HTMX),
    ("/search/?q={word}.com", HTMX),
    ("/search/suggestions/?q={word}", HTMX),
    "/cart/",
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/reset/",
    "/legal/terms/",
    "/legal/privacy/",
    "/healthz",
    "/readyz",
)
SIGNED_IN_PAGES = (
    "/orders/",
    "/orders/?q=memoryowned1",
    "/account/",
    "/account/billing/",
    "/cart/",
    "/search/?q={word}",
)

MODULES = """
import sys
from collections import Counter
from django.core.wsgi import get_wsgi_application
get_wsgi_application()
from django.urls import get_resolver
get_resolver().url_patterns
packages = Counter(name.split(".")[0] for name in sys.modules)
print(len(sys.modules), "modules;", ", ".join(f"{name} {count}" for name, count in packages.most_common(30)))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="times each page is asked for")
    parser.add_argument("--modules", action="store_true", help="also print what a worker imports, by package")
    parser.add_argument("--api", action="store_true", help="then call the staff API and measure again")
    args = parser.parse_args()

    with running() as servers:
        session_key = _manage(servers, "shell", "-c", SIGNED_IN).strip().splitlines()[-1]
        workers = _workers(servers.store_pid)
        print(f"web workers {workers}, after start: {_figures(workers)}")
        statuses: dict[int, int] = {}
        for _ in range(args.rounds):
            word = "memory" + "".join(random.choices(string.ascii_lowercase, k=4))
            for page in ANONYMOUS:
                _get(servers.storefront, page, word, statuses)
            for page in SIGNED_IN_PAGES:
                _get(servers.storefront, page, word, statuses, session_key=session_key)
        print(f"answers: {dict(sorted(statuses.items()))}")
        after = {pid: _memory(pid) for pid in workers}
        for pid, figures in after.items():
            print(f"worker {pid} after warm-up: {_describe(figures)}")
        largest = max(figures["rss"] for figures in after.values())
        verdict = "met" if largest <= GOAL_MB else "NOT met"
        print(f"largest worker: {largest:.1f} MB resident; goal at most {GOAL_MB} MB: {verdict}")
        if args.api:
            _api(servers, workers, args.rounds)
        if args.modules:
            print(_manage(servers, "shell", "-c", MODULES).strip().splitlines()[-1])


def _api(servers: Servers, workers: list[int], rounds: int) -> None:
    key = _manage(servers, "shell", "-c", API_KEY).strip().splitlines()[-1]
    statuses: dict[int, int] = {}
    for _ in range(rounds):
        for path in API_PAGES:
            _get(servers.storefront, (path, {"Authorization": f"Bearer {key}"}), "", statuses)
    print(f"staff API answers: {dict(sorted(statuses.items()))}")
    for pid in workers:
        print(f"worker {pid} after the staff API: {_describe(_memory(pid))}")


def _get(base: str, page: str | tuple[str, dict[str, str]], word: str, statuses: dict[int, int], **kw: str) -> None:
    path, headers = (page, {}) if isinstance(page, str) else page
    cookie = CSRF_COOKIE + (f"; sessionid={kw['session_key']}" if kw.get("session_key") else "")
    request = urllib.request.Request(base + path.format(word=word), headers={**headers, "Cookie": cookie})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as err:  # a 404 or 429 is an answer too: its page was drawn
        status = err.code
    statuses[status] = statuses.get(status, 0) + 1


def _workers(arbiter: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == arbiter:
            children.append(int(stat.parent.name))
    return sorted(children)


def _memory(pid: int) -> dict[str, float]:
    """Resident, proportional and private memory of a process, in MB (/proc's kB figures)."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            figures["rss"] = int(line.split()[1]) / 1024
    private = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name == "Pss":
            figures["pss"] = int(rest.split()[0]) / 1024
        elif name in ("Private_Clean", "Private_Dirty"):
            private += int(rest.split()[0])
    figures["private"] = private / 1024
    return figures


def _describe(figures: dict[str, float]) -> str:
    return f"{figures['rss']:.1f} MB resident, {figures['pss']:.1f} MB proportional, {figures['private']:.1f} MB own"


def _figures(workers: list[int]) -> str:
    return "; ".join(f"{pid}: {_memory(pid)['rss']:.1f} MB" for pid in workers)


def _manage(servers: Servers, *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=servers.store_env, capture_output=True, text=True, check=True
    )
    return done.stdout


if __name__ == "__main__":
    main()
