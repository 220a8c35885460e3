"""The shape the code keeps (docs/architecture.md): views are thin, and outside services are reached only through
their one module. Import rules between apps and features are import-linter's (pyproject.toml, run in CI)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("accounts", "billing", "dns", "domains", "pricing", "storefront")
VIEW_MODULES = sorted(path for app in APPS for path in (ROOT / app).rglob("*views.py"))
VIEW_LINES_MAX = 40


def _views(path: Path) -> list[ast.FunctionDef]:
    """The module's view functions: its decorated top-level functions (every view carries at least one)."""
    tree = ast.parse(path.read_text())
    return [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.decorator_list]


@pytest.mark.parametrize("path", VIEW_MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_views_are_short(path: Path):
    long = [
        f"{view.name} ({view.end_lineno - view.lineno + 1} lines)"
        for view in _views(path)
        if view.end_lineno and view.end_lineno - view.lineno + 1 > VIEW_LINES_MAX
    ]
    assert long == [], f"move the work into a service: {long}"


@pytest.mark.parametrize("path", VIEW_MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_views_never_call_the_provider_or_the_payment_service(path: Path):
    tree = ast.parse(path.read_text())
    calls = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "gateway"
    ]
    assert calls == [], f"gateway() called on lines {calls}: call a service that calls it"
    imports = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imports |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {name for name in imports if name == "billing.stripe_client"}, "views never reach Stripe's client"


def test_the_webhook_view_only_verifies_the_signature_with_the_sdk():
    """billing.views imports the SDK for one thing: checking a delivery's signature (no API call)."""
    source = (ROOT / "billing" / "views.py").read_text()
    uses = [line.strip() for line in source.splitlines() if "stripe." in line and "import" not in line]
    assert all("WebhookSignature.verify_header" in use or "SignatureVerificationError" in use for use in uses), uses
