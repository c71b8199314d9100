// Keeps the live counts of import runs current in the admin without reloading the page.
// Every [data-import-run-live] block whose data-active is "true" is fetched again from its
// data-live-url every two seconds and swapped in place, until its run has finished.
"use strict";
{
  const POLL_MS = 2000;
  const MAX_FAILURES = 5;

  function parseBlock(html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    const block = template.content.firstElementChild;
    // A lapsed session answers with the login page: that is not a block, so stop there.
    return block && block.matches("[data-import-run-live]") ? block : null;
  }

  function refresh(block, failures) {
    if (document.hidden) {
      watch(block, failures);
      return;
    }
    fetch(block.dataset.liveUrl, {credentials: "same-origin", headers: {Accept: "text/html"}})
      .then((response) => {
        if (!response.ok || response.redirected) {
          throw new Error(`live counts answered ${response.status}`);
        }
        return response.text();
      })
      .then((html) => {
        const fresh = parseBlock(html);
        if (!fresh) {
          return;
        }
        block.replaceWith(fresh);
        if (fresh.dataset.active !== "true" && fresh.hasAttribute("data-reload-when-finished")) {
          // Once, at the end: the chunk and issue lists below are then final too.
          window.location.reload();
          return;
        }
        watch(fresh, 0);
      })
      .catch(() => {
        if (failures + 1 < MAX_FAILURES) {
          setTimeout(() => refresh(block, failures + 1), POLL_MS * 2 ** (failures + 1));
        }
      });
  }

  function watch(block, failures) {
    if (block.dataset.active === "true") {
      setTimeout(() => refresh(block, failures), POLL_MS);
    }
  }

  window.addEventListener("load", () => {
    document.querySelectorAll("[data-import-run-live]").forEach((block) => watch(block, 0));
  });
}
