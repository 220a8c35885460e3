"""Staying up when a dependency is not: the circuit breakers, the cache that never fails a page, shared counters and
rate limits."""
