#!/usr/bin/env bash
# The external links of every page (the papers, the documentation of the tools, Binder, ...),
# checked over the network with Sphinx's linkcheck builder, from the execution cache (nothing is
# executed when the cache is warm).  The scheduled workflow runs it weekly; the report of every
# link is _build/linkcheck/_build/html/output.txt, and a broken link fails the command with its page and line.
#
#   scripts/check_external_links.sh          # the book
#   scripts/check_external_links.sh BOOK     # another Jupyter Book folder (the tests use a scratch one)
set -euo pipefail
cd "$(dirname "$0")/.."

book=${1:-.}
out=$book/_build/linkcheck
mkdir -p "$book/_build/.jupyter_cache" "$out/_build"
cache=$(realpath "$book/_build/.jupyter_cache")
if [ "$(readlink "$out/_build/.jupyter_cache" 2>/dev/null)" != "$cache" ]; then
    rm -rf "$out/_build/.jupyter_cache"
    ln -s "$cache" "$out/_build/.jupyter_cache"
fi
status=0
jupyter-book build "$book" --path-output "$out" --builder linkcheck || status=$?
report="$out/_build/html/output.txt"  # jupyter-book puts every builder's output in _build/html
if [ -f "$report" ]; then
    grep -E "\[(broken|redirected with Found)\]" "$report" || true
    echo "external links: $(grep -c '\[ok\]' "$report" 2>/dev/null || echo 0) ok," \
         "$(grep -c '\[broken\]' "$report" 2>/dev/null || echo 0) broken (report: $report)"
fi
exit "$status"
