"""bin/check-readme-links, which CI runs after `mkdocs build --strict`: a README link into docs/ that leads nowhere
(no such page, or no such heading on the built page) fails CI."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_checker() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("check_readme_links", str(ROOT / "bin" / "check-readme-links"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def broken(tmp_path: Path, readme_text: str) -> list[str]:
    site = tmp_path / "site"
    (site / "tax").mkdir(parents=True)
    (site / "tax" / "index.html").write_text('<h1 id="tax">Tax</h1>', encoding="utf-8")
    (site / "index.html").write_text('<h2 id="the-pages">The pages</h2>', encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text(readme_text, encoding="utf-8")
    return load_checker().broken_links(readme, site)


def test_links_to_existing_pages_and_headings_pass(tmp_path: Path) -> None:
    text = "[Tax](docs/tax.md), [its top](docs/tax.md#tax), [home](docs/index.md#the-pages), [docs/](docs/index.md)"
    assert broken(tmp_path, text) == []


def test_a_missing_page_fails(tmp_path: Path) -> None:
    assert broken(tmp_path, "See [Nowhere](docs/nowhere.md).") == ["docs/nowhere.md: no such file"]


def test_a_missing_heading_fails(tmp_path: Path) -> None:
    (problem,) = broken(tmp_path, "See [rates](docs/tax.md#rates).")
    assert problem.startswith("docs/tax.md#rates") and "#rates" in problem


def test_the_readme_links_into_docs() -> None:
    """The README's map points newcomers to the docs: the checker has links to check."""
    assert load_checker().LINK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
