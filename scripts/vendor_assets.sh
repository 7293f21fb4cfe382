#!/usr/bin/env bash
# Re-create site_assets/static/seqrmt/vendor/ from the npm registry.
#
# The built book must work offline, so the JavaScript that Sphinx/myst-nb would
# otherwise load from CDNs (MathJax 3, RequireJS, the ipywidgets HTML manager) is
# vendored here.  Only the files the pages actually load are kept (a few MB).
# Usage: scripts/vendor_assets.sh   (needs npm and network access to the npm registry)
set -euo pipefail

MATHJAX=mathjax@3.2.2
HTML_MANAGER=@jupyter-widgets/html-manager@1.0.6
REQUIREJS=requirejs@2.3.8

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/site_assets/static/seqrmt/vendor"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
npm pack --silent "$MATHJAX" "$HTML_MANAGER" "$REQUIREJS" >/dev/null
for t in *.tgz; do mkdir -p "${t%.tgz}" && tar xzf "$t" -C "${t%.tgz}"; done
mj="$tmp/$(ls -d mathjax-*/ | head -1)package"
hm="$tmp/$(ls -d jupyter-widgets-html-manager-*/ | head -1)package"
rq="$tmp/$(ls -d requirejs-*/ | head -1)package"

rm -rf "$dest"
mkdir -p "$dest/mathjax/input/tex/extensions" "$dest/mathjax/output/chtml/fonts" \
         "$dest/html-manager" "$dest/requirejs"

# MathJax: the combined TeX+MathML -> CommonHTML component, the TeX extensions it
# autoloads on demand (\boldsymbol, \cancel, ...; all-packages.js is never
# autoloaded), and the woff-v2 fonts of the CHTML output.
cp "$mj/es5/tex-mml-chtml.js" "$dest/mathjax/"
cp "$mj"/es5/input/tex/extensions/*.js "$dest/mathjax/input/tex/extensions/"
rm -f "$dest/mathjax/input/tex/extensions/all-packages.js"
cp -r "$mj/es5/output/chtml/fonts/woff-v2" "$dest/mathjax/output/chtml/fonts/"
cp "$mj/LICENSE" "$dest/mathjax/LICENSE"

# ipywidgets HTML manager (renders the saved widget state without a kernel) and the
# Font Awesome web fonts its CSS requests (Chromium/Firefox/Safari use woff2; woff
# is kept as the fallback).
cp "$hm/dist/embed-amd.js" "$hm/dist/embed.js.LICENSE.txt" "$dest/html-manager/"
cp "$hm"/dist/*.woff2 "$hm"/dist/*.woff "$dest/html-manager/"
# The package ships no LICENSE file; its package.json declares BSD-3-Clause.
grep -m1 '"license"' "$hm/package.json" > "$dest/html-manager/LICENSE-package.json.txt"

# RequireJS (MIT; the licence is in the file header).
cp "$rq/require.js" "$dest/requirejs/"

{
  echo "mathjax $(node -p "require('$mj/package.json').version")"
  echo "@jupyter-widgets/html-manager $(node -p "require('$hm/package.json').version")"
  echo "requirejs $(node -p "require('$rq/package.json').version")"
} > "$dest/VERSIONS.txt"
du -sh "$dest"
