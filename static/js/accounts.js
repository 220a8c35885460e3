// Signup, password change and reset: live password rules (the server checks the same rules again), the
// suggested English spelling of a refused name, the dialling prefix. No inline handlers: CSP-friendly.
(function () {
  "use strict";
  var SPECIALS = "~*!@$#%_+.?:,{}";
  var rules = {
    length: function (p) { return p.length >= 9 && p.length <= 15; },
    upper: function (p) { return /[A-Z]/.test(p); },
    lower: function (p) { return /[a-z]/.test(p); },
    digit: function (p) { return /[0-9]/.test(p); },
    special: function (p) { return p.split("").some(function (c) { return SPECIALS.indexOf(c) !== -1; }); },
    chars: function (p) {
      return p.split("").every(function (c) { return /[A-Za-z0-9]/.test(c) || SPECIALS.indexOf(c) !== -1; });
    }
  };

  function checkPassword(input, list) {
    var value = input.value;
    list.querySelectorAll("li[data-rule]").forEach(function (item) {
      var ok = rules[item.dataset.rule](value);
      item.classList.toggle("rule-ok", value !== "" && ok);
      item.classList.toggle("rule-bad", value !== "" && !ok);
    });
  }

  function checkMatch(first, second, message) {
    if (second.value && first.value !== second.value) {
      second.setCustomValidity(message);
    } else {
      second.setCustomValidity("");
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    // Each rules list (the partial accounts/_password_field.html) names its password and confirmation inputs.
    document.querySelectorAll(".password-rules[data-password]").forEach(function (list) {
      var password = document.getElementById(list.dataset.password);
      var password2 = list.dataset.confirm ? document.getElementById(list.dataset.confirm) : null;
      if (!password) { return; }
      password.addEventListener("input", function () { checkPassword(password, list); });
      checkPassword(password, list);
      if (password2) {
        // The sentence comes from the page, in the customer's language (data-mismatch on the rules list).
        var mismatch = list.dataset.mismatch || "The two passwords do not match.";
        password.addEventListener("input", function () { checkMatch(password, password2, mismatch); });
        password2.addEventListener("input", function () { checkMatch(password, password2, mismatch); });
      }
    });
    // A name refused for its accents: one press puts the suggested English spelling in the field.
    document.querySelectorAll("button.use-spelling").forEach(function (button) {
      var input = document.getElementById(button.dataset.field);
      if (!input) { return; }
      button.hidden = false;
      button.addEventListener("click", function () {
        input.value = button.dataset.value;
        button.hidden = true;
        input.focus();
      });
    });
    // The prefix input is replaced (out of band) when the country changes: listen on the document.
    document.addEventListener("change", function (event) {
      if (event.target && event.target.id === "id_country_code") {
        event.target.value = event.target.value.replace(/[^0-9]/g, "").replace(/^0+/, "");
      }
    });
  });
})();
