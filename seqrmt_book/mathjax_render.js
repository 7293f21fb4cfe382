// Typeset TeX with MathJax 3 at build time (used by seqrmt_book/typeset.py).
//
//   node mathjax_render.js BUILD_DIR EXTENSIONS_DIR FONT_URL
//
// One process serves a whole build, one request per line on stdin, one answer per line
// on stdout (JSON):
//   {"tex": "...", "display": true|false}  ->  {"html": "<mjx-container ...>", "error": null|"message"}
//   {"css": true}                          ->  {"css": "<the CommonHTML stylesheet of every glyph typeset so far>"}
// It ends at the end of stdin.
//
// BUILD_DIR holds MathJax's startup, core, TeX input, CommonHTML output, liteDOM and
// assistive-MathML components; EXTENSIONS_DIR the TeX extensions that \require or
// autoload fetch (the ones the site vendors).  Each formula gets the hidden MathML that
// screen readers read (<mjx-assistive-mml>); no formula is a tab stop (no menu).
"use strict";
const path = require("path");

const [buildDir, extDir, fontURL] = process.argv.slice(2).map((a, i) => (i < 2 ? path.resolve(a) : a));
if (!buildDir || !extDir || !fontURL) {
  process.stderr.write("usage: node mathjax_render.js BUILD_DIR EXTENSIONS_DIR FONT_URL\n");
  process.exit(2);
}

global.MathJax = {
  loader: {
    paths: { mathjax: buildDir, tex: extDir },
    require: require,
    load: ["input/tex", "output/chtml", "adaptors/liteDOM", "a11y/assistive-mml"],
  },
  // The same TeX set-up as the browser component tex-mml-chtml.js (base, ams,
  // newcommand, noundefined, require, autoload, configmacros) and Sphinx's delimiters.
  tex: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]] },
  chtml: { fontURL: fontURL },
  startup: { typeset: false },
};
require(path.join(buildDir, "startup.js"));


// Every element of a typeset formula (the CommonHTML and its hidden MathML), in document order.
function elements(adaptor, node) {
  const out = [];
  const walk = (n) => {
    const kind = adaptor.kind(n);
    if (kind === "#text" || kind === "#comment") return;
    out.push(n);
    for (const child of adaptor.childNodes(n)) walk(child);
  };
  walk(node);
  return out;
}

// TeX errors come out as an <merror> whose data-mjx-error attribute holds the message, or, for an
// undefined macro (noundefined), as its name in a red <mtext>: read on the formula's element tree.
function texError(adaptor, node) {
  const all = elements(adaptor, node);
  const message = all.find((e) => adaptor.getAttribute(e, "data-mjx-error") != null);
  if (message) return adaptor.getAttribute(message, "data-mjx-error");
  const red = all.filter((e) => adaptor.getAttribute(e, "mathcolor") === "red");
  const undefinedMacro = red.find((e) => adaptor.kind(e) === "mtext");
  if (undefinedMacro) return "undefined control sequence " + adaptor.textContent(undefinedMacro);
  return red.length || all.some((e) => adaptor.kind(e) === "merror") ? "TeX error" : null;
}

MathJax.startup.promise
  .then(async () => {
    const adaptor = MathJax.startup.adaptor;
    const lines = require("readline").createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      const request = JSON.parse(line);
      let answer;
      if (request.css) {
        answer = { css: adaptor.textContent(MathJax.chtmlStylesheet()) };
      } else {
        const node = await MathJax.tex2chtmlPromise(request.tex, { display: !!request.display });
        answer = { html: adaptor.outerHTML(node), error: texError(adaptor, node) };
      }
      process.stdout.write(JSON.stringify(answer) + "\n");
    }
  })
  .catch((err) => {
    process.stderr.write(String((err && err.stack) || err) + "\n");
    process.exit(1);
  });
