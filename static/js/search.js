// Live domain search. The box is a plain GET form; htmx (attributes in the template) makes it answer as the
// customer types. This file only smooths two edges, and the page works without it.
(function () {
  "use strict";

  // Enter or the Search button: run the live search instead of loading a new page. Chrome and Safari also
  // fire the input's own "search" event on Enter; hx-sync="this:replace" keeps only the newest request.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-live-search]") || !window.htmx) return;
    var input = form.querySelector("input[name=q]");
    if (!input) return;
    event.preventDefault();
    window.htmx.trigger(input, "search");
  });

  // htmx saves the page for the back button as HTML, which holds an input's initial value, not what was typed.
  // Write the typed value into the attribute first, so going back shows the search that matched the results.
  document.addEventListener("htmx:beforeHistorySave", function () {
    document.querySelectorAll("form[data-live-search] input[name=q]").forEach(function (input) {
      input.setAttribute("value", input.value);
    });
  });
})();
