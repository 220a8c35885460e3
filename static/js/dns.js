// DNS editor: show the priority field only for MX records. Without this script the field stays visible,
// labelled "MX only", and the server ignores it for other types.
(function () {
  "use strict";

  function syncPriority(form) {
    var type = form.querySelector("select[name=type]");
    var row = form.querySelector(".dns-field-priority");
    if (!type || !row) return;
    row.hidden = type.value !== "MX";
  }

  function wire(root) {
    var forms = (root.querySelectorAll ? root : document).querySelectorAll(".dns-add-form");
    if (root.matches && root.matches(".dns-add-form")) forms = [root];
    Array.prototype.forEach.call(forms, function (form) {
      syncPriority(form);
      if (form.dataset.dnsWired) return;
      form.dataset.dnsWired = "1";
      form.addEventListener("change", function (event) {
        if (event.target.name === "type") syncPriority(form);
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () { wire(document); });
  // htmx swaps in new forms (after an add, a tab change): wire those too.
  document.addEventListener("htmx:load", function (event) { wire(event.target); });
})();
