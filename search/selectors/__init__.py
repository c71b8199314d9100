"""Search reads, one module per kind of record: researchers (the researchers tab), works
(ranked full text), topics_institutions, suggestions (the header box), counts (the tabs), and
results (the page, count and facet shapes they share). Name matching itself lives below, in
researchers.name_search, because the API and the graph app use it too."""
