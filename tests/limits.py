"""Rate-limit windows for tests that count requests against a small limit."""

# Windows are fixed and aligned to the clock (storefront/resilience/ratelimit.py): a short one may end between two
# requests of one test, and the later request then counts in a fresh window, as if the limit did not hold. A window of
# about eleven days makes that boundary as good as impossible during a test.
TEST_WINDOW = 10**6
