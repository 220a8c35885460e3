"""bin/check-translations fails on what a Spanish customer would read in English or in another voice, allauth's
sentences included (issue 30). Its pieces are run on small catalogues written here, not on the real ones."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


@pytest.fixture(scope="module")
def check() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("check_translations", str(ROOT / "bin" / "check-translations"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _po(tmp_path: Path, name: str, messages: dict[str, str], fuzzy: tuple[str, ...] = ()) -> Path:
    catalog = Catalog(locale="es")
    for msgid, msgstr in messages.items():
        catalog.add(msgid, msgstr, flags=("fuzzy",) if msgid in fuzzy else ())
    path = tmp_path / f"{name}.po"
    with path.open("wb") as po:
        write_po(po, catalog)
    return path


def test_an_untranslated_or_fuzzy_string_of_ours_fails(check, tmp_path):
    po = _po(tmp_path, "ours", {"Renewed": "", "Active": "Activo", "Total": "Total"}, fuzzy=("Active",))
    found = check.problems(po, "es")
    assert any("untranslated" in problem and "'Renewed'" in problem for problem in found)
    assert any("fuzzy" in problem and "'Active'" in problem for problem in found)
    assert not any("'Total'" in problem for problem in found)


def test_usted_in_our_catalogue_fails(check, tmp_path):
    po = _po(tmp_path, "ours", {"Confirm your email": "Confirme su dirección de correo electrónico"})
    assert any("not our voice" in problem for problem in check.problems(po, "es"))
    # Third person is not the customer being addressed: the domain's own code, a subjunctive.
    po = _po(tmp_path, "fine", {"a": "antes de mostrar su código de transferencia", "b": "en cuanto se confirme"})
    assert check.problems(po, "es") == []


def test_allauths_formal_sign_in_banner_is_not_our_voice(check, tmp_path):
    po = _po(tmp_path, "ours", {"Signed in as %(name)s.": "Ha iniciado sesión como %(name)s."})
    assert any("not our voice" in problem for problem in check.problems(po, "es"))
    po = _po(tmp_path, "fine", {"a": "Has iniciado sesión.", "b": "Se ha iniciado sesión en tu cuenta."})
    assert check.problems(po, "es") == []


def test_tu_in_french_and_du_in_german_fail(check, tmp_path):
    # The store says "vous" in French and "Sie" in German (issue 42); the other voice, in any of its forms, fails.
    for text in ("Confirme ton adresse e-mail.", "Veux-tu te déconnecter ?", "Nous t'avons envoyé un lien."):
        assert any("not our voice" in problem for problem in check.problems(_po(tmp_path, "fr", {"a": text}), "fr"))
    for text in ("Bist du sicher?", "Bitte bestätige deine E-Mail-Adresse.", "Wir haben dir einen Link geschickt."):
        assert any("not our voice" in problem for problem in check.problems(_po(tmp_path, "de", {"a": text}), "de"))
    # One name for one thing: allauth's "deux facteurs" is the store's "vérification en deux étapes".
    french = {"a": "Activer l'authentification à deux facteurs"}
    assert any("not our voice" in problem for problem in check.problems(_po(tmp_path, "fr", french), "fr"))
    # Words that only look like the other voice: "tes" inside "Êtes-vous", "Dir" inside "Direkt", "Tarif", "t" alone.
    french = {"a": "Êtes-vous sûr(e) ?", "b": "Votre tarif : 12 €.", "c": "Ceci vous est destiné.", "d": "Tout va."}
    assert check.problems(_po(tmp_path, "fr-fine", french), "fr") == []
    german = {"a": "Sind Sie sicher?", "b": "Direkt zu Ihrem Konto.", "c": "Dieser Durchlauf ist fertig."}
    assert check.problems(_po(tmp_path, "de-fine", german), "de") == []


def test_a_string_that_bypasses_the_catalogue_fails(check):
    source = """
from django.contrib import messages
from django.utils.translation import gettext

def view(request, record, done):
    messages.success(request, "Saved.")
    messages.info(request, f"Added {record}.")
    note = gettext(f"Added {record}.")
    both = f"{done} {gettext('Your payment is being completed.')}"
    fine = gettext("Added %(record)s.") % {"record": record}
    url = f"/orders/{record}/?page=2"
    logger.info(f"added record {record} for the customer")
    return f"Added {record}."
"""
    found = check.python_literal_problems(check.ROOT / "dns" / "views.py", source)
    lines = sorted((int(problem.split(":")[1]), problem.split(": ", 1)[1].split(" (")[0][:25]) for problem in found)
    assert lines == [
        (6, "a literal message"),
        (7, "a literal message"),
        (7, "words in an f-string in a"),
        (8, "an f-string given to gett"),
        (8, "words in an f-string in a"),
        (9, "gettext inside an f-strin"),
        (13, "words in an f-string in a"),
    ]


def test_words_in_a_template_outside_translate_fail(check, tmp_path, monkeypatch):
    monkeypatch.setattr(check, "ROOT", tmp_path)
    page = tmp_path / "page.html"
    page.write_text(
        '{% load i18n %}<p class="note" title="{{ x }}">{% translate "Fine" %} {{ name }} DNS</p>'
        "{% blocktranslate %}Also fine {{ x }}{% endblocktranslate %}{# Comment words #}"
        "<script>let words = 1;</script>"
    )
    assert check.template_literal_problems(page) == []
    page.write_text("{% load i18n %}<p>Renewed until {{ date }}</p>")
    assert check.template_literal_problems(page) == ["page.html: words outside {% translate %}: 'Renewed until'"]


def test_an_allauth_string_translated_nowhere_fails(check, tmp_path):
    msgids = {(None, "Sign In"): "allauth/templates/account/login.html", (None, "Sign Out"): "allauth/x.html"}
    ours = check.catalog_read(_po(tmp_path, "ours", {"Sign In": "Iniciar sesión"}), "es")
    theirs = check.catalog_read(_po(tmp_path, "theirs", {"Sign Out": ""}), "es")
    found = check.allauth_problems(ours, theirs, "es", msgids)
    assert found == ["es: untranslated (allauth/x.html): 'Sign Out'"]


def test_allauths_own_usted_fails_until_our_catalogue_rewords_it(check, tmp_path):
    msgids = {(None, "Are you sure?"): "allauth/templates/mfa/recovery_codes/generate.html"}
    theirs = check.catalog_read(_po(tmp_path, "theirs", {"Are you sure?": "¿Está seguro?"}), "es")
    ours = check.catalog_read(_po(tmp_path, "ours", {}), "es")
    assert any("not our voice" in problem for problem in check.allauth_problems(ours, theirs, "es", msgids))
    ours = check.catalog_read(_po(tmp_path, "ours", {"Are you sure?": "¿Seguro?"}), "es")
    assert check.allauth_problems(ours, theirs, "es", msgids) == []


def test_it_finds_the_allauth_sentences_our_customers_read(check):
    import allauth

    msgids = check.allauth_msgids(Path(allauth.__file__).resolve().parent, check.TEMPLATES)
    # The password reset email's subject (allauth's template, not overridden here) and a form error.
    assert (None, "Password Reset Email") in msgids
    assert (None, "You must type the same password each time.") in msgids
    # A template the store replaces is its own: its strings come through our catalogue instead.
    assert not any(where == "allauth/templates/account/password_change.html" for where in msgids.values())
    assert (None, "Please Confirm Your Email Address") not in msgids  # the store's own verification email


def test_the_shipped_catalogues_pass(check):
    catalogues = sorted((ROOT / "locale").glob("*/LC_MESSAGES/django.po"))
    assert check.allauth_check(catalogues) == []
    assert check.literal_problems() == []
    assert [problem for po in catalogues for problem in check.problems(po, po.parent.parent.name)] == []
