// Typeset TeX with MathJax 3 at build time (used by site_assets/seqrmt_math.py).
//
//   node mathjax_render.js BUILD_DIR EXTENSIONS_DIR FONT_URL < in.json > out.json
//
// in.json:  [{"tex": "...", "display": true|false}, ...]
// out.json: {"html": ["<mjx-container ...>", ...], "errors": [[index, message], ...],
//            "css": "<the CommonHTML stylesheet for every glyph used>"}
//
// BUILD_DIR holds MathJax's startup, core, TeX input, CommonHTML output, liteDOM and
// assistive-MathML components; EXTENSIONS_DIR the TeX extensions that \require or
// autoload fetch (the ones the site vendors).  Each formula gets the hidden MathML that
// screen readers read (<mjx-assistive-mml>); no formula is a tab stop (no menu).
"use strict";
const path = require("path");

const [buildDir, extDir, fontURL] = process.argv.slice(2).map((a, i) => (i < 2 ? path.resolve(a) : a));
if (!buildDir || !extDir || !fontURL) {
  process.stderr.write("usage: node mathjax_render.js BUILD_DIR EXTENSIONS_DIR FONT_URL < in.json\n");
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

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (c) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

MathJax.startup.promise
  .then(async () => {
    const items = JSON.parse(await readStdin());
    const adaptor = MathJax.startup.adaptor;
    const html = [];
    const errors = [];
    for (let i = 0; i < items.length; i++) {
      const { tex, display } = items[i];
      const node = await MathJax.tex2chtmlPromise(tex, { display: !!display });
      const out = adaptor.outerHTML(node);
      // TeX errors come out as <merror> (with noerrors) or as red text (noundefined).
      const bad = /<merror|mathcolor="red"|data-mjx-error/.exec(out);
      if (bad) {
        const msg = /data-mjx-error="([^"]*)"/.exec(out);
        const undef = /<mtext mathcolor="red">([^<]*)<\/mtext>/.exec(out);
        errors.push([i, msg ? msg[1] : undef ? "undefined control sequence " + undef[1] : "TeX error"]);
      }
      html.push(out);
    }
    const css = adaptor.textContent(MathJax.chtmlStylesheet());
    process.stdout.write(JSON.stringify({ html, errors, css }));
  })
  .catch((err) => {
    process.stderr.write(String((err && err.stack) || err) + "\n");
    process.exit(1);
  });
