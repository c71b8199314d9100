/* Shared by the profile panel and the explorer: Cytoscape styles and slice-to-elements. */
(function () {
  "use strict";
  if (window.bzGraph) return;

  var COLORS = { researcher: "#2454c5", work: "#6b7280", topic: "#8b3fb5", institution: "#1e7a46" };
  var SHAPES = { researcher: "ellipse", work: "round-rectangle", topic: "diamond", institution: "hexagon" };

  function elementsOf(slice) {
    var nodes = slice.nodes.map(function (node) {
      var data = Object.assign({}, node, { kind: node.type });
      delete data.type;
      // Shortened once here: Cytoscape's own ellipsis measures text on every draw.
      data.short = node.label.length > 28 ? node.label.slice(0, 27) + "…" : node.label;
      return { group: "nodes", data: data, classes: node.type + (node.center ? " center" : "") };
    });
    var edges = slice.edges.map(function (edge) {
      return { group: "edges", data: Object.assign({}, edge), classes: edge.kind };
    });
    return nodes.concat(edges);
  }

  function style() {
    return [
      { selector: "node", style: {
        "background-color": function (n) { return COLORS[n.data("kind")] || "#999"; },
        "shape": function (n) { return SHAPES[n.data("kind")] || "ellipse"; },
        "label": "data(short)", "font-size": 9, "color": "#1d2330",
        "text-valign": "bottom", "text-margin-y": 3,
        // Two short lines rather than one long one, so neighbours' labels don't run together.
        "text-wrap": "wrap", "text-max-width": 80,
        "width": 16, "height": 16, "min-zoomed-font-size": 7,
      } },
      { selector: "node.researcher", style: { "width": 22, "height": 22 } },
      { selector: "node.center", style: { "width": 32, "height": 32, "border-width": 3, "border-color": "#f0b400", "font-weight": "bold" } },
      { selector: "node.expanded", style: { "border-width": 2, "border-color": "#1d2330" } },
      { selector: "node:selected", style: { "border-width": 4, "border-color": "#f0b400" } },
      { selector: "edge", style: { "width": 1, "line-color": "#c4cad6", "curve-style": "haystack", "opacity": 0.8 } },
      { selector: "edge.coauthor", style: { "line-color": "#7d97d8", "width": function (e) { return Math.max(1, Math.min(6, 1 + 2 * (e.data("weight") || 0))); } } },
      { selector: "edge.affiliated", style: { "line-style": "dashed", "line-color": "#7fb796" } },
      { selector: "edge.about", style: { "line-color": "#c9a6dd" } },
      // A work citing another: an arrow from the citing work, so the direction reads.
      { selector: "edge.cites", style: { "line-color": "#d8a25e", "curve-style": "bezier", "target-arrow-shape": "triangle", "target-arrow-color": "#d8a25e", "arrow-scale": 0.7 } },
      { selector: ".path", style: { "line-color": "#d14900", "background-color": "#d14900", "width": 5, "z-index": 10 } },
      { selector: "node.path", style: { "width": 28, "height": 28 } },
      { selector: ".filtered", style: { "display": "none" } },
    ];
  }

  var loading = null;
  function loadCytoscape(src) {
    if (window.cytoscape) return Promise.resolve(window.cytoscape);
    if (loading) return loading;
    loading = new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = src;
      script.onload = function () { resolve(window.cytoscape); };
      script.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(script);
    });
    return loading;
  }

  // Cytoscape sizes its canvases in pixels when it starts and otherwise only on a window
  // resize; a container that changes width for another reason (the grid stacking its columns,
  // a panel swapped in) would keep the old canvas. Redraw at the container's size whenever it
  // changes, once per frame.
  function followContainer(cy, container) {
    if (!window.ResizeObserver) return;
    var pending = false;
    new ResizeObserver(function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; cy.resize(); });
    }).observe(container);
  }

  window.bzGraph = {
    elementsOf: elementsOf, style: style, loadCytoscape: loadCytoscape,
    followContainer: followContainer, colors: COLORS,
  };
})();
