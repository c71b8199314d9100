// Collaboration's behaviour, loaded on every page of a signed-in user (base.html). No inline
// script is allowed (Content-Security-Policy: self only), and htmx's trigger filters
// ("every 60s [expression]") are evaluated with Function(), which that policy refuses too:
// what they would do is done here instead.
(function () {
  "use strict";

  // The header badge polls every 60 s and when the tab comes back into view
  // (hx-trigger="every 60s, visibilitychange from:document" on [data-visible-only]); a poll
  // while the tab is hidden is cancelled, so a background tab costs the server nothing.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var element = event.detail && event.detail.elt;
    if (element && element.hasAttribute("data-visible-only") && document.visibilityState !== "visible") {
      event.preventDefault();
    }
  });

  // A live character count under each textarea that names its counter
  // (data-count-target="id"); with data-count-min it also says how many are still needed.
  function formatNumber(number) {
    return number.toLocaleString("en");
  }

  function updateCount(textarea) {
    var counter = document.getElementById(textarea.getAttribute("data-count-target"));
    if (!counter) {
      return;
    }
    var length = textarea.value.replace(/\r\n/g, "\n").length;
    var max = parseInt(textarea.getAttribute("maxlength"), 10);
    var min = parseInt(textarea.getAttribute("data-count-min") || "0", 10);
    var text = formatNumber(length) + " / " + formatNumber(max) + " characters";
    if (min && length < min) {
      text += " (at least " + formatNumber(min - length) + " more)";
    }
    counter.textContent = text;
    counter.classList.toggle("char-count-short", Boolean(min) && length < min);
  }

  function initCounters(root) {
    var areas = root.querySelectorAll("textarea[data-count-target]");
    for (var i = 0; i < areas.length; i++) {
      updateCount(areas[i]);
    }
  }

  document.addEventListener("input", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("textarea[data-count-target]")) {
      updateCount(target);
    }
  });
  // The invitation panel comes back as an htmx fragment after a send: count what it holds.
  document.addEventListener("htmx:afterSwap", function (event) {
    initCounters(event.detail && event.detail.target ? event.detail.target.parentNode || document : document);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { initCounters(document); });
  } else {
    initCounters(document);
  }
  // The invitation's anchor picker: a ticked work or topic moves to the chosen list, so a new
  // search (which replaces the results) keeps it; unticked in the chosen list, it goes away.
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box || box.type !== "checkbox") return;
    var picker = box.closest("[data-anchor-picker]");
    if (!picker) return;
    var chosen = picker.querySelector("[data-anchor-chosen]");
    var label = box.closest("label");
    if (box.checked && chosen && label && !chosen.contains(label)) {
      chosen.appendChild(label);
    } else if (!box.checked && chosen && label && chosen.contains(label)) {
      label.remove();
    }
  });
})();
