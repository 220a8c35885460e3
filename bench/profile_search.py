"""Where a search's time goes: cProfile (or pyinstrument, when installed and --pyinstrument is given) over
storefront searches served in this process, the provider being the sandbox in its own gunicorn.

Usage (from the repository root):

    .venv/bin/python bench/profile_search.py [--requests 500] [--cache redis|database|locmem]
        [--kind anonymous-fragment|anonymous-page|signed-in-fragment|signed-in-page] [--uncached] [--top 25]
        [--pyinstrument] [--dump FILE] [--no-profiler]

Production settings (DEBUG off), SQLite in a temporary folder, the whole middleware stack, Django's test client
(no network between client and storefront, so the profile is the storefront's own work). Cached by default (the
same term again and again: the MetaSearch answer comes from the cache); --uncached searches a new term each time,
over the sandbox with no injected latency. Prints the functions with the most cumulative and own time; --dump
keeps the whole profile for pstats; --no-profiler only times the searches (p50 and p90 per search).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import search_bench as bench


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--cache", choices=("redis", "database", "locmem"), default="redis")
    parser.add_argument("--kind", default="anonymous-fragment", choices=[k.replace(" ", "-") for k in bench.KINDS])
    parser.add_argument("--uncached", action="store_true")
    parser.add_argument("--pyinstrument", action="store_true")
    parser.add_argument("--dump", help="also write cProfile's statistics to this file (pstats, snakeviz)")
    parser.add_argument("--no-profiler", action="store_true", help="only time the searches (ms each, p50 and mean)")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="search-profile-"))
    processes = []
    try:
        sandbox_port = bench._free_port()
        sandbox_env = bench._sandbox_env(tmp / "sandbox.sqlite3")
        for command in (["migrate", "--noinput"], ["sandbox_seed"]):
            bench._manage(sandbox_env, command, sandbox=True)
        sandbox = bench._gunicorn(
            sandbox_env, sandbox_port, workers=1, threads=8, log=tmp / "s.log", app="sandbox.wsgi"
        )
        processes.append(sandbox)
        if args.cache == "redis":
            redis, cache_url = bench._start_redis()
            processes.append(redis)
        elif args.cache == "database":
            cache_url = "dbcache://storefront_cache"
        else:
            cache_url = "locmemcache://profile"
        root = f"http://127.0.0.1:{sandbox_port}"
        env = bench._env(tmp / "store.sqlite3") | {
            "RESELLER_SANDBOX": "false",
            "RESELLER_API_KEY": "test_sandbox_demo",
            "RESELLER_BASE_URL": root,
            "RESELLER_METASEARCH_URL": f"{root}/metasearch",
            "RESELLER_PANEL_URL": f"{root}/panel",
            "CACHE_URL": cache_url,
            # The request log line is written as in production (to a file, not the terminal).
            "LOG_LEVEL": "INFO",
        }
        for command in (["migrate", "--noinput"], ["createcachetable"], ["collectstatic", "--noinput"]):
            bench._manage(env, command)
        bench._manage(env, ["sync_prices"])
        session_key = bench._manage(env, ["shell", "-c", bench.SIGNED_IN], output=True).strip().splitlines()[-1]
        bench._wait_until_up(root, sandbox)
        os.environ.update(env)
        _profile(args, session_key)
    finally:
        for process in reversed(processes):
            bench._stop(process)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _profile(args: argparse.Namespace, session_key: str) -> None:
    import logging

    import django

    django.setup()
    from django.test import Client

    # Production's handler writes each line to stdout; here to a file, so the profile's report stays readable.
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(open(os.devnull, "w"))

    client = Client(HTTP_HOST="127.0.0.1")
    kind = args.kind.replace("-fragment", " fragment").replace("-page", " page").replace("anonymous-", "anonymous ")
    headers = {"HX-Request": "true"} if kind.endswith("fragment") else {}
    # As a browser that has loaded a page holds it (bench/search_bench.py sends the same).
    name, _, value = bench.CSRF_COOKIE.partition("=")
    client.cookies[name] = value
    if kind.startswith("signed-in"):
        client.cookies["sessionid"] = session_key
    run = uuid.uuid4().hex[:6]

    def one(i: int) -> None:
        term = f"prof{run}{i}" if args.uncached else f"prof{run}"
        # Many customers: a new address each time, as the search benchmark sends.
        response = client.get("/search/", {"q": term}, headers=headers | {"X-Forwarded-For": bench._address()})
        assert response.status_code == 200 and b"result-row" in response.content, response.status_code

    for i in range(20):
        one(-i)  # warm: templates, the price book, connections
    started = time.perf_counter()
    if args.no_profiler:
        times = []
        for i in range(args.requests):
            began = time.perf_counter()
            one(i)
            times.append((time.perf_counter() - began) * 1000)
        times.sort()
        p50, p90 = times[len(times) // 2], times[len(times) * 9 // 10]
        print(f"p50 {p50:.2f} ms, p90 {p90:.2f} ms (the test client's own time and the provider's included)")
    elif args.pyinstrument:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0002)
        profiler.start()
        for i in range(args.requests):
            one(i)
        profiler.stop()
        print(profiler.output_text(unicode=True, color=False, show_all=False))
    else:
        profile = cProfile.Profile()
        profile.enable()
        for i in range(args.requests):
            one(i)
        profile.disable()
        if args.dump:
            profile.dump_stats(args.dump)
        stats = pstats.Stats(profile).strip_dirs()
        stats.sort_stats("cumulative").print_stats(args.top)
        stats.sort_stats("tottime").print_stats(args.top)
    elapsed = time.perf_counter() - started
    print(
        f"{args.requests} {kind} searches ({'uncached' if args.uncached else 'cached'}, cache {args.cache}): "
        f"{elapsed / args.requests * 1000:.2f} ms each{'' if args.no_profiler else ' under the profiler'}"
    )


if __name__ == "__main__":
    sys.exit(main())
