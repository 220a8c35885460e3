// The receipt and credit note pages: a Print button (shown only where this script runs; the browser's own Print
// command does the same).
document.querySelectorAll("[data-print]").forEach((button) => {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
});
