/* The profile's graph panel: draws the slice embedded in the panel with Cytoscape.js.
   Runs when htmx swaps the panel in (htmx executes this script tag) or on a direct load. */
(function () {
  "use strict";

  function render(panel) {
    if (panel.dataset.rendered) return;
    panel.dataset.rendered = "1";
    var data = document.getElementById(panel.dataset.sliceId);
    var canvas = panel.querySelector("[data-graph-canvas]");
    if (!data || !canvas) return;
    var slice = JSON.parse(data.textContent);
    var busy = panel.closest("[aria-busy]");
    if (busy) busy.setAttribute("aria-busy", "false");
    window.bzGraph.loadCytoscape(panel.dataset.cytoscapeSrc).then(function (cytoscape) {
      var cy = cytoscape({
        container: canvas,
        elements: window.bzGraph.elementsOf(slice),
        style: window.bzGraph.style(),
        layout: { name: "concentric", concentric: function (n) {
          return n.hasClass("center") ? 10 : n.data("kind") === "researcher" ? 6 : 3; },
          levelWidth: function () { return 1; }, minNodeSpacing: 40, animate: false },
        // A small slice fitted to the panel would be zoomed in until its labels collide.
        minZoom: 0.3, maxZoom: 1.4, wheelSensitivity: 0.3, boxSelectionEnabled: false,
      });
      // A click opens the node's page, as the links in the lists do.
      cy.on("tap", "node", function (event) {
        var url = event.target.data("url");
        if (url && !event.target.hasClass("center")) window.location.assign(url);
      });
      window.bzGraph.followContainer(cy, canvas);
      canvas.dataset.nodes = String(cy.nodes().length);
      panel.bzCy = cy;
      panel.dispatchEvent(new CustomEvent("graph:rendered", { bubbles: true }));
    }).catch(function (error) {
      canvas.textContent = "The graph could not be drawn; the lists beside it hold the same.";
      if (window.console) console.warn(error);
    });
  }

  function renderAll() {
    var panels = document.querySelectorAll("[data-graph-panel]");
    for (var i = 0; i < panels.length; i++) render(panels[i]);
  }

  function start() {
    if (window.bzGraph) { renderAll(); return; }
    var panel = document.querySelector("[data-graph-panel][data-common-src]");
    if (!panel) return;
    var script = document.createElement("script");
    script.src = panel.dataset.commonSrc;  // a static URL, hashed in production
    script.onload = renderAll;
    document.head.appendChild(script);
  }

  start();
  if (!window.bzGraphPanelListening) {
    window.bzGraphPanelListening = true;
    document.addEventListener("htmx:afterSettle", function () { if (window.bzGraph) renderAll(); });
  }
})();
