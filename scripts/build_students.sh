#!/usr/bin/env bash
# The students' edition: the book without the solutions of its exercises, on the website, in
# the PDF and in every notebook the download button serves (seqrmt_book/students.py), beside
# the full edition:
#
#   scripts/build_students.sh             # website _build/students/_build/html/, PDF in its _pdf/
#   scripts/build_students.sh --html      # the website only (no TeX needed)
#
# The solutions of the pages listed in `seqrmt_released_solutions` (_config.yml) stay: list a
# chapter there once its deadline has passed and build again.  The notebooks' outputs come from
# the book's execution cache (_build/.jupyter_cache), so a built book makes this a re-render
# (about a minute for the website, a few for the PDF).  Run it in the book's virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."

export SEQRMT_EDITION=students
out=_build/students
mkdir -p _build/.jupyter_cache "$out/_build"
cache=$(realpath _build/.jupyter_cache)
if [ "$(readlink "$out/_build/.jupyter_cache" 2>/dev/null)" != "$cache" ]; then
    rm -rf "$out/_build/.jupyter_cache"
    ln -s "$cache" "$out/_build/.jupyter_cache"
fi
# The edition's PDF is built right after its website, which therefore links it (the products a
# page links: seqrmt_book/products.py); --html: no PDF, no link.
if [ "${1:-}" != "--html" ]; then
    export SEQRMT_PRODUCTS="${SEQRMT_PRODUCTS:-pdf}"
fi
scripts/without_system_node.sh jupyter-book build . --path-output "$out" -n -W --keep-going
echo "students' edition: $out/_build/html/index.html"
if [ "${1:-}" != "--html" ]; then
    scripts/build_pdf.sh "$out/pdf" "$out/_build/html"
fi
