#!/usr/bin/env bash
# The students' edition: the book without the solutions of its exercises, on the website, in
# the PDF and in every notebook the download button serves (seqrmt_book/students.py), beside
# the full edition:
#
#   scripts/build_students.sh             # website _build/students/_build/html/, PDF in its _pdf/
#   scripts/build_students.sh --html      # the website only (no TeX needed), with no link to a PDF
#   scripts/build_students.sh --website   # the website only, linking the PDF that --pdf builds
#   scripts/build_students.sh --pdf       # the PDF only, into the website's _pdf/ (scripts/publish.py
#                                         # runs --website and --pdf side by side)
#
# The solutions of the pages listed in `seqrmt_released_solutions` (_config.yml) stay: list a
# chapter there once its deadline has passed and build again.  The notebooks' outputs come from
# the book's execution cache (_build/.jupyter_cache), so a built book makes this a re-render
# (about a minute for the website, a few for the PDF).  Run it in the book's virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."

# The edition's PDF is built right after its website (or beside it: --website, --pdf), which
# therefore links it (the products a page links: seqrmt_book/products.py); --html: no PDF, no link.
mode=${1:-}
case "$mode" in
    ""|--html|--website|--pdf) ;;
    *) echo "usage: scripts/build_students.sh [--html | --website | --pdf]" >&2; exit 2 ;;
esac
export SEQRMT_EDITION=students
out=_build/students
mkdir -p _build/.jupyter_cache "$out/_build"
# the website's link to the shared execution cache (the PDF's own: scripts/build_pdf.sh), made only
# by the website's build, so that --website and --pdf running side by side never both make it
cache=$(realpath _build/.jupyter_cache)
if [ "$mode" != "--pdf" ] && [ "$(readlink "$out/_build/.jupyter_cache" 2>/dev/null)" != "$cache" ]; then
    rm -rf "$out/_build/.jupyter_cache"
    ln -s "$cache" "$out/_build/.jupyter_cache"
fi
if [ "$mode" != "--html" ]; then
    export SEQRMT_PRODUCTS="${SEQRMT_PRODUCTS:-pdf}"
fi
if [ "$mode" != "--pdf" ]; then
    scripts/without_system_node.sh jupyter-book build . --path-output "$out" -n -W --keep-going
    echo "students' edition: $out/_build/html/index.html"
fi
if [ "$mode" = "" ] || [ "$mode" = "--pdf" ]; then
    scripts/build_pdf.sh "$out/pdf" "$out/_build/html"
fi
