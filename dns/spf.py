"""SPF records: a name may have only one (RFC 7208 §3.2: with two, receivers answer "permerror" and every
message fails the check), so a second sender is merged into the existing record instead of added beside it."""

from __future__ import annotations

PREFIX = "v=spf1"


def is_spf(value: str) -> bool:
    text = value.strip().lower()
    return text == PREFIX or text.startswith(PREFIX + " ")


def _is_all(term: str) -> bool:
    return term.lower().lstrip("+-~?") == "all"


def merge(*, existing: list[str], new: str) -> str:
    """One SPF record allowing every sender of `existing` and `new`, in that order, with the existing policy
    for everything else (its `all` term: the customer chose how strict to be), or the new one's if it had none.

    A `redirect=` becomes an `include:` so the domain it named still counts once other senders sit beside it.
    """
    terms: list[str] = []
    seen: set[str] = set()
    policy = ""
    for value in [*existing, new]:
        for term in value.split()[1:]:
            if _is_all(term):
                policy = policy or term
                continue
            if term.lower().startswith("redirect="):
                term = "include:" + term.split("=", 1)[1]
            if term.lower() not in seen:
                seen.add(term.lower())
                terms.append(term)
    return " ".join([PREFIX, *terms, policy or "~all"])
