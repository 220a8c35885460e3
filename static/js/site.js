// Site-wide behaviour. Kept in a file (never inline) so the Content-Security-Policy needs no 'unsafe-inline'.
(function () {
  "use strict";

  // The footer's language form returns to the address the page was drawn at (its hidden `next`). Searches typed,
  // order lists paged and DNS records filtered change the address through htmx without drawing the footer again:
  // the form then follows the address, so choosing a language keeps the customer where they are.
  function languageFormReturnsHere() {
    var here = window.location.pathname + window.location.search;
    document.querySelectorAll("form.language-switcher input[name=next]").forEach(function (input) {
      input.value = here;
    });
  }
  ["htmx:pushedIntoHistory", "htmx:replacedInHistory", "htmx:historyRestore"].forEach(function (name) {
    document.addEventListener(name, languageFormReturnsHere);
  });
})();
