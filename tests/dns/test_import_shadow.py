"""The app named `dns` shadows dnspython's import name: `import dns` must always be ours."""

from pathlib import Path

from django.conf import settings


def test_it_imports_the_projects_own_dns_app():
    import dns

    assert Path(dns.__file__).resolve().is_relative_to(Path(settings.BASE_DIR).resolve())
    assert not Path(dns.__file__).resolve().is_relative_to(Path(settings.BASE_DIR, ".venv").resolve())


def test_dnspython_is_not_installed():
    # dnspython arrives with email-validator and friends; installed, it competes with the app for `dns`.
    from importlib import metadata

    installed = {dist.metadata["Name"].lower() for dist in metadata.distributions()}
    assert "dnspython" not in installed
