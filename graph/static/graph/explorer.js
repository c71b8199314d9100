/* The full explorer: expand node by node, filter, add people, find paths, export.
   Plain DOM and Cytoscape.js; all data comes from the JSON API. window.bzExplorer is the
   handle the browser tests use. */
(function () {
  "use strict";
  var root = document.getElementById("explorer");
  if (!root || !window.cytoscape || !window.bzGraph) return;

  var $ = function (id) { return document.getElementById(id); };
  var statusLine = $("explorer-status");
  var expanded = {};   // slug -> true once its slice is in the graph
  var topicNames = {}; // topic node id -> label
  var firstSlice = true;
  var crowded = false;

  var cy = cytoscape({
    container: $("explorer-canvas"),
    style: window.bzGraph.style(),
    minZoom: 0.05, maxZoom: 4, wheelSensitivity: 0.3,
    // Kept light for thousands of nodes: a bitmap while panning, no edges while moving.
    textureOnViewport: true, hideEdgesOnViewport: true, pixelRatio: 1, motionBlur: false,
  });
  window.bzGraph.followContainer(cy, $("explorer-canvas"));

  function say(text) { statusLine.textContent = text; }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), attrs[key]);
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.detail || JSON.stringify(body));
        return body;
      });
    });
  }

  function sliceUrl(slug) { return root.dataset.sliceUrl.replace("SLUG", encodeURIComponent(slug)); }

  function edgeId(edge) {
    if (edge.kind !== "coauthor") return edge.id;
    return "coauthor:" + [edge.source, edge.target].sort().join("-");
  }

  // Adds a slice: new nodes on a ring around the anchor, so nothing already placed moves.
  function addSlice(slice, anchorId) {
    var elements = window.bzGraph.elementsOf(slice);
    var anchor = anchorId ? cy.getElementById(anchorId) : cy.collection();
    var origin = anchor.nonempty() ? anchor.position() : { x: 0, y: 0 };
    var fresh = elements.filter(function (e) { return e.group === "nodes" && cy.getElementById(e.data.id).empty(); });
    var radius = 90 + 7 * fresh.length;
    var turn = Math.random() * Math.PI;
    fresh.forEach(function (e, i) {
      var angle = turn + (2 * Math.PI * i) / Math.max(1, fresh.length);
      e.position = { x: origin.x + radius * Math.cos(angle), y: origin.y + radius * Math.sin(angle) };
    });
    var centerOf = slice.researcher.id;
    if (cy.getElementById(centerOf).empty()) {
      fresh.forEach(function (e) { if (e.data.id === centerOf) e.position = { x: origin.x, y: origin.y }; });
    }
    var seen = {};
    var links = elements.filter(function (e) {
      if (e.group !== "edges") return false;
      e.data.id = edgeId(e.data);
      if (seen[e.data.id] || cy.getElementById(e.data.id).nonempty()) return false;
      seen[e.data.id] = true;
      return true;
    });
    cy.batch(function () {
      cy.add(fresh);
      cy.add(links.filter(function (e) {
        return cy.getElementById(e.data.source).nonempty() && cy.getElementById(e.data.target).nonempty();
      }));
      cy.getElementById(centerOf).addClass("expanded");
    });
    expanded[slice.researcher.slug] = true;
    slice.nodes.forEach(function (n) { if (n.type === "topic") topicNames[n.id] = n.label; });
    if (firstSlice) {
      firstSlice = false;
      cy.layout({ name: "concentric", animate: false, minNodeSpacing: 14,
        concentric: function (n) { return n.hasClass("center") ? 10 : n.data("kind") === "researcher" ? 6 : 3; },
        levelWidth: function () { return 1; } }).run();
      cy.fit(undefined, 30);
    }
    if (!crowded && cy.nodes().length > 400) {
      // Hundreds of labels cost more to draw than everything else: show them only when
      // zoomed in far enough to read them.
      crowded = true;
      cy.style().selector("node").style("min-zoomed-font-size", 12).update();
    }
    scheduleSide();
    applyFilters();
    return fresh.length;
  }

  function expand(slug, anchorId) {
    if (expanded[slug]) {
      say("Already expanded. " + cy.nodes().length + " nodes in the graph.");
      return Promise.resolve(0);
    }
    say("Loading the neighbourhood…");
    return getJSON(sliceUrl(slug)).then(function (slice) {
      var added = addSlice(slice, anchorId || slice.researcher.id);
      say("Added " + added + " nodes around " + slice.researcher.name + ". " + cy.nodes().length + " nodes in the graph.");
      return added;
    }).catch(function (error) { say("Could not load that neighbourhood: " + error.message); });
  }

  var sidePending = false;
  function scheduleSide() {
    if (sidePending) return;
    sidePending = true;
    requestAnimationFrame(function () { sidePending = false; refreshSide(); });
  }

  // Side panels: people (with keyboard expand), topics for the filter, path "from" choices.
  function refreshSide() {
    var people = cy.nodes(".researcher").sort(function (a, b) {
      return (b.hasClass("center") - a.hasClass("center")) || (b.data("weight") - a.data("weight"));
    });
    var list = $("people-list");
    list.textContent = "";
    var fragment = document.createDocumentFragment();
    people.forEach(function (node) {
      var slug = node.data("slug");
      fragment.appendChild(el("li", {}, [
        el("a", { href: node.data("url"), text: node.data("label") }),
        document.createTextNode(" "),
        expanded[slug] ? el("span", { class: "muted", text: "(expanded)" })
          : el("button", { type: "button", class: "link-button", "aria-label": "Expand " + node.data("label"), text: "Expand",
              onclick: function () { expand(slug, node.id()); } }),
      ]));
    });
    list.appendChild(fragment);
    $("people-count").textContent = String(people.length);

    var topicSelect = $("topic-filter");
    var chosen = topicSelect.value;
    topicSelect.textContent = "";
    topicSelect.appendChild(el("option", { value: "", text: "All topics" }));
    Object.keys(topicNames).sort(function (a, b) { return topicNames[a].localeCompare(topicNames[b]); }).forEach(function (id) {
      topicSelect.appendChild(el("option", { value: id, text: topicNames[id] }));
    });
    topicSelect.value = chosen;

    var from = $("path-from");
    var current = from.value;
    from.textContent = "";
    people.filter(function (n) { return n.data("slug"); }).slice(0, 300).forEach(function (node) {
      from.appendChild(el("option", { value: node.data("slug"), text: node.data("label") }));
    });
    if (current) from.value = current;
  }

  function applyFilters() {
    var from = parseInt($("year-from").value, 10);
    var to = parseInt($("year-to").value, 10);
    from = isNaN(from) ? -Infinity : from;
    to = isNaN(to) ? Infinity : to;
    var topic = $("topic-filter").value;
    var topicNode = topic ? cy.getElementById(topic) : null;
    var hidden = 0;
    cy.batch(function () {
      cy.elements(".filtered").removeClass("filtered");
      cy.nodes(".work").forEach(function (n) {
        var year = n.data("year");
        var out = year != null && (year < from || year > to);
        if (topicNode && n.edgesWith(topicNode).empty()) out = true;
        if (out) { n.addClass("filtered"); hidden++; }
      });
      if (topicNode) cy.nodes(".topic").forEach(function (n) { if (n.id() !== topic) n.addClass("filtered"); });
      cy.edges(".coauthor").forEach(function (e) {
        var first = e.data("first_year"), last = e.data("last_year");
        if (first != null && last != null && (last < from || first > to)) e.addClass("filtered");
      });
    });
    return hidden;
  }

  function showSelected(node) {
    var box = $("selected");
    box.textContent = "";
    var kind = node.data("kind");
    var lines = [el("p", {}, [el("strong", { text: node.data("label") })]), el("p", { class: "muted", text:
      kind === "work" ? "Work" + (node.data("year") ? ", " + node.data("year") : "") + " · " + node.data("weight") + " citations"
      : kind === "topic" ? "Topic" : kind === "institution" ? "Institution" : "Researcher" })];
    lines.push(el("p", {}, [el("a", { href: node.data("url"), text: "Open page" })]));
    lines.forEach(function (line) { box.appendChild(line); });
  }

  cy.on("tap", "node", function (event) {
    var node = event.target;
    showSelected(node);
    if (node.data("kind") === "researcher" && node.data("slug")) expand(node.data("slug"), node.id());
  });

  ["year-from", "year-to", "topic-filter"].forEach(function (id) {
    $(id).addEventListener("change", function () {
      var hidden = applyFilters();
      say(hidden ? hidden + " works hidden by the filters." : "All works shown.");
    });
  });
  $("fit").addEventListener("click", function () { cy.fit(undefined, 30); });
  $("relayout").addEventListener("click", function () {
    // cose is pleasant but quadratic; past a few hundred nodes use the concentric rings.
    var layout = cy.nodes().length <= 400 ? { name: "cose", animate: false, numIter: 600 }
      : { name: "concentric", animate: false, minNodeSpacing: 6,
          concentric: function (n) { return n.degree(); }, levelWidth: function () { return 4; } };
    cy.layout(layout).run();
    cy.fit(undefined, 30);
  });

  function download(name, blob) {
    var url = URL.createObjectURL(blob);
    var link = el("a", { href: url, download: name });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }
  $("export-png").addEventListener("click", function () {
    download("bzpeer-graph.png", cy.png({ output: "blob", bg: "#ffffff", full: true, scale: 2, maxWidth: 4000, maxHeight: 4000 }));
  });
  $("export-json").addEventListener("click", function () {
    var data = {
      nodes: cy.nodes().map(function (n) { var d = Object.assign({}, n.data()); d.type = d.kind; delete d.kind; return d; }),
      edges: cy.edges().map(function (e) { return e.data(); }),
    };
    download("bzpeer-graph.json", new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
  });

  function searchPeople(query, target, onPick, verb) {
    target.textContent = "";
    if (!query.trim()) return;
    var url = root.dataset.searchUrl + "?page_size=8&search=" + encodeURIComponent(query.trim());
    getJSON(url).then(function (page) {
      if (!page.results.length) { target.appendChild(el("li", { class: "muted", text: "Nobody found." })); return; }
      page.results.forEach(function (person) {
        target.appendChild(el("li", {}, [el("button", { type: "button", class: "link-button",
          text: verb + " " + person.display_name, onclick: function () { onPick(person); } }),
          el("span", { class: "muted", text: " · " + person.works_count + " works" })]));
      });
    }).catch(function (error) { target.appendChild(el("li", { text: "Search failed: " + error.message })); });
  }

  $("add-person").addEventListener("submit", function (event) {
    event.preventDefault();
    searchPeople($("add-q").value, $("add-results"), function (person) {
      expand(person.slug).then(function () { cy.fit(undefined, 30); });
    }, "Add");
  });

  function showPath(result) {
    var box = $("path-result");
    box.textContent = "";
    if (!result.found) {
      box.appendChild(el("p", { text: "No connection found: " + result.reason + "." }));
      return;
    }
    var names = {};
    result.researchers.forEach(function (p) { names[p.id] = p; });
    box.appendChild(el("p", { text: result.hops.length === 0 ? "That is the same person." :
      result.hops.length + " hop" + (result.hops.length === 1 ? "" : "s") + " through joint works:" }));
    var list = el("ol", { class: "path-hops" });
    result.hops.forEach(function (hop) {
      var works = el("ul", {});
      hop.works.forEach(function (work) {
        works.appendChild(el("li", {}, [el("a", { href: work.url, text: work.title }),
          document.createTextNode(work.year ? " (" + work.year + ")" : "")]));
      });
      list.appendChild(el("li", {}, [
        el("a", { href: names[hop.source].url, text: names[hop.source].name }),
        document.createTextNode(" — "),
        el("a", { href: names[hop.target].url, text: names[hop.target].name }),
        document.createTextNode(": " + hop.joint_works + " joint work" + (hop.joint_works === 1 ? "" : "s")),
        works,
      ]));
    });
    box.appendChild(list);
    // Put the chain in the graph and light it up.
    var previous = cy.nodes().length ? cy.nodes()[0].position() : { x: 0, y: 0 };
    cy.batch(function () {
      cy.elements(".path").removeClass("path");
      result.researchers.forEach(function (p, i) {
        var node = cy.getElementById(p.id);
        if (node.empty()) {
          node = cy.add({ group: "nodes", data: { id: p.id, kind: "researcher", label: p.name, short: p.name, url: p.url, slug: p.slug, weight: 0 },
            classes: "researcher", position: { x: previous.x + 120, y: previous.y + 60 * (i % 2 ? 1 : -1) } });
        }
        previous = node.position();
        node.addClass("path");
      });
      result.hops.forEach(function (hop) {
        var id = "coauthor:" + [hop.source, hop.target].sort().join("-");
        var edge = cy.getElementById(id);
        if (edge.empty()) {
          edge = cy.add({ group: "edges", data: { id: id, kind: "coauthor", source: hop.source, target: hop.target,
            weight: hop.weight || 0, joint_works: hop.joint_works }, classes: "coauthor" });
        }
        edge.addClass("path");
      });
    });
    refreshSide();
    cy.fit(cy.elements(".path"), 60);
  }

  function findPath(sourceSlug, targetSlug) {
    $("path-result").textContent = "Looking for the shortest chain of coauthors…";
    var url = root.dataset.pathUrl + "?source=" + encodeURIComponent(sourceSlug) + "&target=" + encodeURIComponent(targetSlug);
    return getJSON(url).then(showPath).catch(function (error) {
      $("path-result").textContent = "Could not look for a path: " + error.message;
    });
  }

  $("path-form").addEventListener("submit", function (event) {
    event.preventDefault();
    searchPeople($("path-to-q").value, $("path-to-results"), function (person) {
      var from = $("path-from").value;
      if (!from) { $("path-result").textContent = "Add a first person to the graph."; return; }
      findPath(from, person.slug);
    }, "Connect to");
  });

  window.bzExplorer = { cy: cy, expand: expand, addSlice: addSlice, applyFilters: applyFilters, findPath: findPath };

  if (root.dataset.start) {
    expand(root.dataset.start).then(function () {
      if (root.dataset.target) findPath(root.dataset.start, root.dataset.target);
    });
  }
})();
