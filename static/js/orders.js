// The domain page: copy the transfer code to the clipboard. Delegated, so it also works on the fragment that
// htmx swaps in. Kept in a file (no inline script) for the Content-Security-Policy.
(function () {
  "use strict";

  // The words come from the button's data attributes, in the page's language (domains/_order_transfer.html).
  function words(button, name, fallback) {
    return button.getAttribute("data-" + name) || fallback;
  }

  function setStatus(button, text) {
    var status = button.parentElement && button.parentElement.querySelector(".copy-status");
    if (status) status.textContent = text;
  }

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-target]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy-target"));
    if (!source) return;
    var text = source.textContent.trim();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () {
          button.textContent = words(button, "copied", "Copied");
          setStatus(button, words(button, "copied-status", "Copied to the clipboard."));
        },
        function () {
          selectText(source);
          setStatus(button, words(button, "copy-failed", "Copy failed: the code is selected, press Ctrl+C or ⌘C."));
        }
      );
    } else {
      selectText(source);
      setStatus(button, words(button, "selected", "The code is selected: press Ctrl+C or ⌘C to copy it."));
    }
  });
})();
