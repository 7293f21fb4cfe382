/* seqrmt: the search page's ranking (html_search_scorer, set by seqrmt_book/search.py).
 *
 * Sphinx's own scores (searchtools.js), with one change: a page of the API reference
 * (book/api, book/api/*, its objects included) ranks below every page of the book, and a
 * chapter (book/NN_*) a little above the other pages of the book.  Sphinx scores an API
 * object that matches the query above any page that uses the word, so "Stieltjes" listed
 * two methods of BulkLaw before the chapter that develops the transform. */
var Scorer = {
  score: function (result) {
    var docname = result[0], score = result[4];
    if (/^book\/api(\/|$)/.test(docname)) return score - 40;
    if (/^book\/\d\d_/.test(docname)) return score + 2;
    return score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};

/* The summary under each result is the first passage of the page with the word: on a chapter
 * that was often a code cell ("kappa" in `kap = ...`).  The summary reads the page's prose:
 * code cells, their outputs, the Live code data and the article's button bar are left out of the text it is cut from
 * (Sphinx's own Search.htmlToText does the rest; searchtools.js is loaded before this file). */
if (typeof Search !== "undefined" && Search.htmlToText && !Search.htmlToText.seqrmtProse) {
  (function () {
    var toText = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) {
      var doc = new DOMParser().parseFromString(htmlString, "text/html");
      var code = doc.querySelectorAll("div.cell_input, div.cell_output, #seqrmt-livecode-data, .seqrmt-livecode, " +
                                      ".bd-header-article");
      if (!code.length) return toText(htmlString, anchor);
      code.forEach(function (el) { el.remove(); });
      return toText(doc.documentElement.outerHTML, anchor);
    };
    Search.htmlToText.seqrmtProse = true;
  })();
}
