#!/usr/bin/env bash
# Build the PDF edition of the book and put it where the website links to it.
#
#   scripts/build_pdf.sh            # -> _build/pdf/_build/latex/seqrmt-book.pdf, copied to _build/html/_pdf/
#   scripts/build_pdf.sh OUT SITE   # -> OUT/_build/latex/seqrmt-book.pdf, copied to SITE/_pdf/
#                                   #    (scripts/build_students.sh: the students' edition)
#
# Jupyter Book's `pdflatex` builder runs xelatex (sphinx-jupyterbook-latex).  Needs the Debian
# packages texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended
# texlive-xetex latexmk xindy fonts-freefont-otf fonts-dejavu-core (and poppler-utils for
# tests/test_pdf.py).
#
# The PDF build has its own output folder (_build/pdf/_build: its own Sphinx environment, so
# the HTML build's stays incremental, and the two builds may run at the same time) but shares
# the HTML build's execution cache _build/.jupyter_cache (a link to it): a notebook executed
# by one build is taken from the cache by the other (seqrmt_book/cache.py; each build
# appends what it executed to _build/reports/executions.log).  Sphinx's -W does not see
# LaTeX's own warnings, so the LaTeX log is checked for undefined references and citations
# (they print as "??" in the PDF).
set -euo pipefail
cd "$(dirname "$0")/.."

name=seqrmt-book
start=$(date +%s)
out=${1:-_build/pdf}
site=${2:-_build/html}
mkdir -p _build/.jupyter_cache "$out/_build"
# the shared execution cache (a link, replaced if a folder was left there)
cache=$(realpath _build/.jupyter_cache)
if [ "$(readlink "$out/_build/.jupyter_cache" 2>/dev/null)" != "$cache" ]; then
    rm -rf "$out/_build/.jupyter_cache"
    ln -s "$cache" "$out/_build/.jupyter_cache"
fi
jupyter-book build . --path-output "$out" --builder pdflatex -n -W --keep-going

pdf=$out/_build/latex/$name.pdf
log=$out/_build/latex/$name.log
test -s "$pdf" || { echo "no PDF produced: $pdf" >&2; exit 1; }
if grep -nE "LaTeX Warning: (Reference|Citation|Hyper reference).*undefined|There were undefined references" "$log"; then
    echo "undefined references in $log (they print as ?? in the PDF)" >&2
    exit 1
fi
mkdir -p "$site/_pdf"
cp "$pdf" "$site/_pdf/"
echo "PDF: $site/_pdf/$name.pdf ($(pdfinfo "$pdf" 2>/dev/null | awk '/^Pages:/ {print $2}') pages, built in $(( $(date +%s) - start )) s)"
