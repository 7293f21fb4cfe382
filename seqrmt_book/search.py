"""Sphinx extension: what a reader finds with the search page and the indices.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

* **Ranking.**  Sphinx's search page scores an object of the API (``seqrmt.BulkLaw.stieltjes``)
  above any page whose text has the word, so a search for "Stieltjes" or "kappa" listed the API
  first.  ``static/seqrmt/search-scorer.js`` is the page's ``Scorer`` (``html_search_scorer``,
  Sphinx's documented hook, set here unless ``_config.yml`` sets it): a page of the API
  (``book/api``, ``book/api/*``) ranks below every page of the book, and a chapter above the
  other pages of the book when their scores tie.
* **Greek letters by name and by symbol.**  The search index holds the words of each page: the
  TeX of a formula gives "kappa" (``\\kappa``), prose "κ" only where it is typed, so "κ" found one
  page.  Each page gets, as search keywords (a ``meta`` node ``name="keywords"``, which Sphinx's
  indexer reads; ``doctree-resolved``), both the name and the symbol of every Greek letter it
  uses in either form.
* **The General Index is the book's concepts.**  The API's index entries (326 of 398) go to an
  index of their own, ``api-index.html`` (label ``seqrmt-apiindex``), made from the same entries
  (``html-collect-pages``); the General Index keeps the other ones, and an entry written with two
  cases ("Bulk" from the glossary, "bulk" from a chapter's ``{index}``) is one entry with the
  links of both (``html-page-context`` of ``genindex``).  Both are written by
  ``_templates/genindex.html`` (Sphinx's, with its title and a line to the other index).
* The index of results (``prf-prf.html``, :mod:`seqrmt_book.reading`) can be linked as
  ``{ref}`index of results <prf-prf>```, the API index as ``{ref}`API index <seqrmt-apiindex>```.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes

HERE = Path(__file__).resolve().parent
SCORER = HERE / "static" / "seqrmt" / "search-scorer.js"
#: The page of the API's index entries, and its label.
API_INDEX, API_INDEX_LABEL, API_INDEX_TITLE = "api-index", "seqrmt-apiindex", "API index"
RESULTS_INDEX, RESULTS_INDEX_TITLE = "prf-prf", "Index of results"
#: Pages of the API reference (docnames).
API_PAGES = re.compile(r"^book/api(/|$)")

GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "vartheta": "θ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "rho": "ρ",
    "varrho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "upsilon": "υ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
}
_NAMES = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(GREEK, key=len, reverse=True)) + r")(?![A-Za-z])")
_SYMBOLS = {symbol: name for name, symbol in reversed(list(GREEK.items()))}


def greek_keywords(text: str) -> list[str]:
    """The name and the symbol of every Greek letter of ``text`` (TeX ``\\kappa``, the word
    "kappa" or the symbol "κ"), lower-case names first: ``["kappa", "κ", ...]``."""
    found: dict[str, str] = {}
    for match in _NAMES.finditer(text):
        found[match.group(1).removeprefix("var").lower()] = GREEK[match.group(1)]
    for char in set(text) & set(_SYMBOLS):
        found[_SYMBOLS[char].removeprefix("var").lower()] = char
    return [word for name in sorted(found) for word in (name, found[name])]


def _greek_synonyms(app: Any, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "html":
        return
    words = greek_keywords(" ".join(node.astext() for node in doctree.findall(nodes.Text)))
    if words:
        doctree += nodes.meta("", name="keywords", content=", ".join(words))


def _scorer(app: Any, config: Any) -> None:
    if not config.html_search_scorer:
        config.html_search_scorer = str(SCORER)


# ---------------------------------------------------------------- the indices
def split_index(genindex: list, keep: Any) -> list:
    """The entries of a General Index (``[(letter, [(name, (links, subitems, key))])]``, as
    Sphinx gives it to ``genindex.html``) whose links satisfy ``keep(uri)``; an entry written in
    two cases becomes one, with the links of both (spelt with a lower-case initial, as the
    chapters' ``{index}`` entries write it, if either is)."""
    out = []
    for letter, entries in genindex:
        merged: dict[str, list] = {}
        for name, (links, subitems, key) in entries:
            links = [link for link in links if keep(link[1])]
            subitems = [(sub, [link for link in sublinks if keep(link[1])]) for sub, sublinks in subitems]
            subitems = [(sub, sublinks) for sub, sublinks in subitems if sublinks]
            if not links and not subitems:
                continue
            fold = name.casefold()
            if fold not in merged:
                merged[fold] = [name, links, subitems, key]
                continue
            entry = merged[fold]
            if name[:1].islower() and entry[0][:1].isupper():
                entry[0] = name
            entry[1] += [link for link in links if link not in entry[1]]
            known = dict(entry[2])
            for sub, sublinks in subitems:
                if sub in known:
                    known[sub] += [link for link in sublinks if link not in known[sub]]
                else:
                    entry[2].append((sub, sublinks))
                    known[sub] = sublinks
        if merged:
            out.append((letter, [(n, (links, subs, key)) for n, links, subs, key in merged.values()]))
    return out


def _is_api(uri: str) -> bool:
    return uri.startswith("book/api/") or uri.startswith("book/api.html")


def _api_uri(app: Any) -> Any:
    """``keep(uri)`` for a link of the index to a page of the API (the builder's URIs)."""
    prefixes = tuple(app.builder.get_target_uri(doc) for doc in app.env.found_docs if API_PAGES.match(doc) is not None)
    return lambda uri: uri.split("#", 1)[0] in prefixes or _is_api(uri)


def _api_index_page(app: Any) -> Any:
    if app.builder.format != "html" or not app.config.html_use_index:
        return
    from sphinx.environment.adapters.indexentries import IndexEntries

    entries = split_index(IndexEntries(app.env).create_index(app.builder), _api_uri(app))
    if entries:
        yield (
            API_INDEX,
            {
                "genindexentries": entries,
                "genindexcounts": [sum(1 + len(e[1][1]) for e in group) for _, group in entries],
                "split_index": False,
                "seqrmt_index_title": API_INDEX_TITLE,
                "seqrmt_index_other": ("genindex", "General Index", "the book's terms and concepts"),
            },
            "genindex.html",
        )


def _general_index(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if pagename != "genindex" or "genindexentries" not in context:
        return
    is_api = _api_uri(app)
    context["genindexentries"] = split_index(context["genindexentries"], lambda uri: not is_api(uri))
    context["seqrmt_index_title"] = "General Index"
    context["seqrmt_index_other"] = (API_INDEX, API_INDEX_TITLE, "the functions and classes of seqrmt")


def _labels(app: Any) -> None:
    """``{ref}`` labels for the API index and the index of results."""
    std = app.env.domains["std"]
    for label, docname, title in (
        (API_INDEX_LABEL, API_INDEX, API_INDEX_TITLE),
        (RESULTS_INDEX, RESULTS_INDEX, RESULTS_INDEX_TITLE),
    ):
        std.data["labels"][label] = (docname, "", title)
        std.data["anonlabels"][label] = (docname, "")


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _scorer)
    app.connect("builder-inited", _labels)
    app.connect("doctree-resolved", _greek_synonyms)
    app.connect("html-collect-pages", _api_index_page)
    app.connect("html-page-context", _general_index)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
