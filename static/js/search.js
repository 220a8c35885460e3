// Live domain search. The box is a plain GET form; htmx (attributes in the template) makes it answer as the
// customer types, and this file draws the typed name's rows on each key before that answer. The page works
// without it.
(function () {
  "use strict";

  function isSearchBox(elt) {
    return !!(elt && elt.matches && elt.matches("form[data-live-search] input[name=q]"));
  }

  function term(input) {
    return input.value.trim().toLowerCase();
  }

  // Enter or the Search button: run the live search instead of loading a new page.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-live-search]") || !window.htmx) return;
    var input = form.querySelector("input[name=q]");
    if (!input) return;
    event.preventDefault();
    // Typing already shows this search at this address: its history entry is settled now, not when the request
    // sent below answers. Clearing the box is a search of its own and replaces a request still on its way, so a
    // customer who presses Enter and clears the box at once would otherwise lose the entry for the search seen.
    var shown = new URLSearchParams(window.location.search).get("q");
    if (shown !== null && shown.trim().toLowerCase() === term(input)) typingEntry = false;
    if (pauseTimer !== null) window.clearTimeout(pauseTimer); // this search is sent now, not after the pause
    pauseTimer = null;
    submitting = true;
    window.htmx.trigger(input, "search");
    submitting = false;
  });

  // History. Pauses while typing must not each add an entry (hx-replace-url on the box), but Back should still
  // lead to the previous search: the first typed search after a settled page is pushed and the ones typed after
  // it replace it; a submitted search (Enter, the button) is pushed, or settles the entry typing made.
  var submitting = false; // set while the submit handler triggers the box's search
  var submitted = new WeakSet(); // requests that a submit asked for
  var typingEntry = false; // the current history entry was made by typing, not yet submitted
  document.addEventListener("htmx:beforeHistoryUpdate", function (event) {
    var detail = event.detail;
    var elt = detail.requestConfig && detail.requestConfig.elt;
    if (!isSearchBox(elt) || !detail.history) return;
    var here = window.location.pathname + window.location.search;
    if (submitted.has(detail.xhr)) {
      detail.history.type = typingEntry || detail.history.path === here ? "replace" : "push";
      typingEntry = false;
    } else {
      detail.history.type = typingEntry ? "replace" : "push";
      typingEntry = true;
    }
  });

  // One search, one request: Enter right after typing (the typing's debounced request, the box's own "search"
  // event in Chrome and Safari, the submit above) would otherwise ask for the same term two or three times,
  // each replacing the one before. A request for the term already being answered is not sent again.
  var pending = null; // {term, xhr} of the search in flight
  document.addEventListener("htmx:confirm", function (event) {
    var elt = event.detail.elt;
    if (isSearchBox(elt) && pending && pending.term === term(elt)) {
      event.preventDefault();
      if (submitting) submitted.add(pending.xhr); // the search already on its way is the one submitted
    }
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!isSearchBox(event.detail.elt)) return;
    pending = { term: term(event.detail.elt), xhr: event.detail.xhr };
    if (submitting) submitted.add(event.detail.xhr);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (pending && pending.xhr === event.detail.xhr) pending = null;
  });

  // The AI ideas load in a request of their own after the results (the placeholder in _search_results.html).
  // New results replace that placeholder: its request is abandoned, so an old search's ideas never land in the
  // new block. A request that fails outright (rate limited, offline) says so instead of "Finding…" forever.
  function isAiPlaceholder(elt) {
    return !!(elt && elt.matches && elt.matches("[data-ai-suggestions]"));
  }
  // Its answer is dropped rather than the request aborted: htmx reports every abort as a console error, and
  // the server finishes the call either way (and caches it for the next search of that name). The check is on the
  // placeholder itself: an event on an element no longer in the page never reaches the document, so a listener
  // there never saw a stale answer, which htmx then swapped in (its status line out of band, over the new
  // search's, when answers came back out of order).
  function dropIfReplaced(event) {
    if (!event.currentTarget.isConnected) event.detail.shouldSwap = false;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (isAiPlaceholder(elt)) elt.addEventListener("htmx:beforeSwap", dropIfReplaced);
  });
  function aiFailed(event) {
    var elt = event.detail && event.detail.elt;
    if (!isAiPlaceholder(elt) || !elt.isConnected) return;
    var status = document.getElementById("ai-status");
    // In the page's language: the status element carries the sentence (domains/_search_results.html).
    if (status) status.textContent = status.getAttribute("data-unavailable") || "Suggestions are unavailable right now.";
    elt.remove();
  }
  ["htmx:responseError", "htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, aiFailed);
  });

  // Results on each key. The typed name is drawn at once across the store's extensions from the price list the
  // page carries (_search_area.html): prices are known, availability says "checking…". The box's own request,
  // sent after a short pause (search-pause below), brings availability and MetaSearch's ranking and replaces them.
  var priceList = null;
  function prices() {
    if (priceList === null) {
      var data = document.getElementById("search-price-list");
      try {
        priceList = data ? JSON.parse(data.textContent) : [];
      } catch (err) {
        priceList = [];
      }
    }
    return priceList;
  }
  // A name (and what is typed of an extension) as the store searches it; anything else (an address, an accented
  // or mistyped name) waits for the answer, which says what was searched.
  var DRAWABLE = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.([a-z0-9-]*))?$/;
  var box = document.querySelector("form[data-live-search] input[name=q]");
  var shownTerm = box ? term(box) : null; // the term whose rows the results area shows, drawn or answered

  function drawTyped(input) {
    var typed = term(input);
    if (typed === shownTerm) return;
    var match = DRAWABLE.exec(typed);
    var area = document.getElementById("search-results");
    var block = document.getElementById("search-instant");
    var rowModel = document.getElementById("search-instant-row");
    var list = prices();
    if (!match || !list.length || !area || !block || !rowModel) return;
    var label = match[1];
    var typedTld = match[2] || "";
    var exact = list.filter(function (entry) { return entry.tld === typedTld; });
    var ordered = exact.concat(list.filter(function (entry) { return entry.tld !== typedTld; }));
    var drawn = block.content.cloneNode(true);
    drawn.querySelector("[data-instant-term]").textContent = exact.length ? typed : label;
    var rows = drawn.querySelector("[data-instant-rows]");
    ordered.forEach(function (entry) {
      var row = rowModel.content.firstElementChild.cloneNode(true);
      row.classList.add("result-row");
      row.querySelector(".result-domain").textContent = label + "." + entry.tld;
      row.querySelector(".price").textContent = entry.price;
      if (entry.free) row.querySelector(".badge-free").hidden = false;
      if (exact.length && entry.tld === typedTld) row.classList.add("result-row-mine");
      rows.appendChild(row);
    });
    // Replacing the area also drops a previous answer's AI placeholder: its late answer is not swapped in.
    area.replaceChildren(drawn);
    shownTerm = typed;
  }
  // The request that asks the provider waits for a pause in the typing (the box's hx-trigger is this
  // "search-pause"): a little longer than a key at a brisk 120 ms, so a word typed in one go costs one search, and
  // its AI ideas a second. A customer who goes on typing soon after a search was sent paused mid-word: each
  // search sent within a word doubles the pause the rest of it waits for (150, 300, 600 ms…), so slow keys cost
  // one more search, rarely two (at most 3 provider calls per word, the AI ideas included, in the benchmark's runs
  // on a loaded machine). Typing resumed a second or more after a search was sent starts a new word.
  var SHORT_PAUSE = 150;
  var LONGEST_PAUSE = 1200;
  var NEXT_WORD = 1000;
  var pauseTimer = null;
  var sentAt = -Infinity; // when the last pause sent a search
  var sentInWord = 0; // searches the pauses sent for the word being typed
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!isSearchBox(input)) return;
    drawTyped(input);
    if (Date.now() - sentAt >= NEXT_WORD) sentInWord = 0;
    var wait = Math.min(SHORT_PAUSE * Math.pow(2, sentInWord), LONGEST_PAUSE);
    if (pauseTimer !== null) window.clearTimeout(pauseTimer);
    pauseTimer = window.setTimeout(function () {
      pauseTimer = null;
      sentAt = Date.now();
      sentInWord += 1;
      if (window.htmx) window.htmx.trigger(input, "search-pause");
    }, wait);
  });

  // A late answer never overwrites a newer one: an answer is shown only while the box still holds its term
  // (hx-sync aborts most older requests, but one may already be answering as the next key is drawn).
  // The swap events are the target's (their detail.elt is the results area): the box is the request's element.
  function requester(event) {
    var config = event.detail.requestConfig;
    return config ? config.elt : event.detail.elt;
  }
  var requestTerms = new WeakMap();
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = requester(event);
    if (isSearchBox(elt)) requestTerms.set(event.detail.xhr, term(elt));
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = requester(event);
    if (!isSearchBox(elt) || !requestTerms.has(event.detail.xhr)) return;
    if (requestTerms.get(event.detail.xhr) !== term(elt)) event.detail.shouldSwap = false;
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (isSearchBox(requester(event)) && requestTerms.has(event.detail.xhr)) {
      shownTerm = requestTerms.get(event.detail.xhr);
    }
  });

  // Said once, when an answer has settled, not on every key: how many domains and how many can be bought (the
  // answer carries the sentence). A notice shown instead speaks for itself (its own role, alert or status), and
  // the AI block has its own status line.
  var announced = new WeakSet();
  document.addEventListener("htmx:afterSettle", function (event) {
    var xhr = event.detail.xhr;
    if (!isSearchBox(requester(event)) || announced.has(xhr)) return;
    announced.add(xhr);
    var live = document.getElementById("search-announce");
    var area = document.getElementById("search-results");
    if (!live || !area) return;
    var source = area.querySelector("[data-search-announce]");
    live.textContent = source ? source.textContent.replace(/\s+/g, " ").trim() : "";
  });

  // Back and forward restore the results htmx saved for that address, but its snapshot of the box holds what
  // was being typed when it was taken. The address says which search the results belong to: show that.
  document.addEventListener("htmx:historyRestore", function () {
    var q = new URLSearchParams(window.location.search).get("q") || "";
    document.querySelectorAll("form[data-live-search] input[name=q]").forEach(function (input) {
      input.value = q;
    });
    pending = null;
    typingEntry = false;
    shownTerm = q.trim().toLowerCase();
  });
})();
