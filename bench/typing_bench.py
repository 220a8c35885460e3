"""Benchmark of search as a customer types it: Debian's Chromium types a word into the home page's search box at a
steady pace while the sandbox provider answers MetaSearch after a fixed latency (issue 41).

Usage (from the repository root, after `bin/setup dev`; needs `/usr/bin/chromium`):

    .venv/bin/python bench/typing_bench.py [--runs 5] [--word coffeeshop] [--key-ms 120] [--latency-ms 150]

What it does, all on 127.0.0.1:
1. The sandbox and the storefront as two gunicorn servers (bench/servers.py: production settings, 2 workers x 16
   threads, the cost table synced), and the sandbox's latency fault at --latency-ms on MetaSearch (the results and
   the AI ideas alike).
2. Each run opens the home page in a new browser context and types a word of --word's length at --key-ms a key
   (Playwright's `press_sequentially`). Each run's word is new to the store's caches (--word's first letters and
   two drawn at random), so every run asks the provider as a customer's first search of a name does; a warm-up
   run is not counted.
3. In the page, a MutationObserver on the results notes when each change is painted (the next animation frame);
   the last key's time is its keydown. Printed per run and as median, min and max over the runs:
   - first paint: from the last key to the typed name's rows drawn (search.js, from the page's price list);
   - last row: from the last key to the answer's rows painted (availability and MetaSearch's ranking), the AI
     ideas aside, which are asked for a second after the answer by design (_search_listing.html);
   - provider calls: MetaSearch calls the store made during the run, the AI ideas' own included (the store's
     provider call log, storefront.ProviderCall, counted after the AI ideas have answered).
Everything is stopped and the temporary files removed at the end.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import string
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import Page, sync_playwright

from bench.servers import PYTHON, ROOT, Servers, running

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

# Installed before the page's own scripts: the time of each key and of each painted change of the results.
WATCH_SCRIPT = """
window.__typing = {lastKey: 0, paints: []};
document.addEventListener("keydown", () => { window.__typing.lastKey = performance.now(); }, true);
document.addEventListener("DOMContentLoaded", () => {
  const area = document.getElementById("search-results");
  new MutationObserver(() => {
    const summary = area.querySelector(".search-summary strong");
    const state = {
      typed: area.querySelectorAll(".typed-row-checking").length,
      answered: summary ? summary.textContent : null,
      rows: area.querySelectorAll(".result-row:not(.typed-row-checking)").length,
    };
    requestAnimationFrame(() => window.__typing.paints.push({t: performance.now(), ...state}));
  }).observe(area, {childList: true, subtree: true});
});
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured runs (a warm-up run comes first)")
    parser.add_argument("--word", default="coffeeshop", help="what is typed (its last two letters vary per run)")
    parser.add_argument("--key-ms", type=int, default=120, help="time between keys")
    parser.add_argument("--latency-ms", type=int, default=150, help="the sandbox's MetaSearch latency")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"

    with running() as servers:
        _sandbox_latency(servers, args.latency_ms)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            results = []
            for run in range(args.runs + 1):
                word = args.word[:-2] + "".join(random.choices(string.ascii_lowercase, k=2))
                before = _provider_calls(servers)
                first, last = _type_once(browser, servers.storefront, word, key_ms=args.key_ms)
                calls = _provider_calls(servers) - before
                label = "warm-up" if run == 0 else f"run {run}"
                print(f"{label:>8}: {word}  first paint {first:4.0f} ms  last row {last:4.0f} ms  calls {calls}")
                if run:
                    results.append((first, last, calls))
            browser.close()

    keys = len(args.word)
    print(f"\nTyping '{args.word}' ({keys} keys) at {args.key_ms} ms a key, provider at {args.latency_ms} ms:")
    for name, index, unit in (("first paint", 0, " ms"), ("last row", 1, " ms"), ("provider calls", 2, "")):
        values = [result[index] for result in results]
        print(
            f"  {name:<15} median {statistics.median(values):6.0f}{unit}  "
            f"min {min(values):6.0f}{unit}  max {max(values):6.0f}{unit}"
        )


def _type_once(browser, base_url: str, word: str, *, key_ms: int) -> tuple[float, float]:
    context = browser.new_context(base_url=base_url, locale="en-US")
    context.add_init_script(WATCH_SCRIPT)
    page: Page = context.new_page()
    page.goto("/")
    page.wait_for_function("() => !!window.htmx")
    box = page.get_by_label("Search for a domain")
    box.press_sequentially(word, delay=key_ms)
    # The answer for the whole word is in and painted (no typed row left waiting for it).
    page.wait_for_function(
        """(word) => window.__typing.paints.some(
             (p) => p.t > window.__typing.lastKey && p.answered === word && p.typed === 0 && p.rows > 0)""",
        arg=word,
        timeout=30_000,
    )
    timing = page.evaluate(
        """(word) => {
             const after = window.__typing.paints.filter((p) => p.t > window.__typing.lastKey);
             const answered = after.find((p) => p.answered === word && p.typed === 0 && p.rows > 0);
             return {first: after[0].t - window.__typing.lastKey, last: answered.t - window.__typing.lastKey};
           }""",
        word,
    )
    # The AI ideas are asked for a second after the answer: they are this word's provider calls too.
    page.wait_for_function("() => !document.querySelector('[data-ai-suggestions]')", timeout=30_000)
    context.close()
    return timing["first"], timing["last"]


def _sandbox_latency(servers: Servers, latency_ms: int) -> None:
    servers.sandbox_manage(
        "shell",
        "-c",
        "from sandbox.faults import demo_partner; from sandbox.models import Fault; "
        f"Fault.objects.update_or_create(partner=demo_partner(), defaults={{'latency_ms': {latency_ms}, "
        "'scope': 'metasearch'})",
    )


def _provider_calls(servers: Servers) -> int:
    """MetaSearch calls in the store's provider call log so far (the results' service and the AI ideas')."""
    done = subprocess.run(
        [
            PYTHON,
            "manage.py",
            "shell",
            "-c",
            "from storefront.models import ProviderCall; "
            "print(ProviderCall.objects.filter(service__in=('search', 'ai')).count())",
        ],
        cwd=ROOT,
        env=servers.store_env,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
