"""Which environment a key belongs to, from its prefix, as the provider documents it."""

from typing import Literal


def key_environment(api_key: str) -> Literal["test", "live", "unknown"]:
    """`test_`/`live_` (also `nk_test_`/`nk_live_`); anything else is no key of ours."""
    bare = api_key.removeprefix("nk_")
    if bare.startswith("test_"):
        return "test"
    if bare.startswith("live_"):
        return "live"
    return "unknown"
