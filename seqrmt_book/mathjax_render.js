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


// TeX errors come out as <merror> (with noerrors) or as red text (noundefined).
function texError(out) {
  if (!/<merror|mathcolor="red"|data-mjx-error/.test(out)) return null;
  const msg = /data-mjx-error="([^"]*)"/.exec(out);
  const undef = /<mtext mathcolor="red">([^<]*)<\/mtext>/.exec(out);
  return msg ? msg[1] : undef ? "undefined control sequence " + undef[1] : "TeX error";
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
        const out = adaptor.outerHTML(node);
        answer = { html: out, error: texError(out) };
      }
      process.stdout.write(JSON.stringify(answer) + "\n");
    }
  })
  .catch((err) => {
    process.stderr.write(String((err && err.stack) || err) + "\n");
    process.exit(1);
  });
