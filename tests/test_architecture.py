"""The shape the code keeps (docs/architecture.md): views are thin, and outside services are reached only through
their one module. Import rules between apps and features are import-linter's (pyproject.toml, run in CI); no import
cycle between files is bin/check-import-cycles' (run in CI and here)."""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("accounts", "billing", "dns", "domains", "pricing", "reseller_api", "storefront", "reseller_webhooks", "demand")
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
    assert not {name for name in imports if name == "billing.payments.stripe_client"}, (
        "views never reach Stripe's client"
    )


def test_the_webhook_view_only_verifies_the_signature_with_the_sdk():
    """billing.views imports the SDK for one thing: checking a delivery's signature (no API call)."""
    source = (ROOT / "billing" / "views.py").read_text()
    uses = [line.strip() for line in source.splitlines() if "stripe." in line and "import" not in line]
    assert all("WebhookSignature.verify_header" in use or "SignatureVerificationError" in use for use in uses), uses


PACKAGE_MODULES_MAX = 20
# Not features: Django finds these by name, and each holds one kind of thing.
NOT_COUNTED = {"migrations", "management", "templatetags", "templates", "commands", "__pycache__"}
PACKAGES = sorted(
    path.parent
    for app in APPS
    for path in (ROOT / app).rglob("__init__.py")
    if not NOT_COUNTED & set(path.relative_to(ROOT).parts)
)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_package_holds_at_most_20_modules(package: Path):
    """Packages by feature (docs/architecture.md): past 20 modules a package is split into the features it holds,
    named so a newcomer finds them from the URL or the admin."""
    modules = sorted(path.name for path in package.glob("*.py") if path.name != "__init__.py")
    assert len(modules) <= PACKAGE_MODULES_MAX, f"{len(modules)} modules: split by feature: {modules}"


def _cycle_checker():
    """bin/check-import-cycles, loaded as a module (it is a script without the .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("check_import_cycles", str(ROOT / "bin" / "check-import-cycles"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_no_file_imports_another_in_a_circle():
    """No import cycle between the apps' files, imports inside functions included (docs/architecture.md)."""
    checked = subprocess.run(
        [sys.executable, str(ROOT / "bin" / "check-import-cycles")], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout


def test_the_cycle_check_sees_imports_inside_functions_and_relative_ones(tmp_path: Path):
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tasks.py").write_text("from app.services import work\n")
    (package / "services.py").write_text("def work():\n    from . import tasks\n")
    (package / "models.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.views import View\n"
    )
    (package / "views.py").write_text("from app import models\n")
    checker = _cycle_checker()
    known = {name: package / f"{name.split('.')[-1]}.py" for name in ("app.tasks", "app.services", "app.models")}
    known |= {"app.views": package / "views.py", "app": package / "__init__.py"}

    assert checker.cycles(checker.graph(known)) == [["app.services", "app.tasks"]]
