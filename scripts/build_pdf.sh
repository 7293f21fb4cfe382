#!/usr/bin/env bash
# Build the PDF edition of the book and put it where the website links to it.
#
#   scripts/build_pdf.sh            # -> _build/latex/seqrmt-book.pdf, copied to _build/html/_pdf/
#
# Jupyter Book's `pdflatex` builder runs xelatex (sphinx-jupyterbook-latex); every notebook
# is executed.  Needs the Debian packages texlive-latex-recommended texlive-latex-extra
# texlive-fonts-recommended texlive-xetex latexmk xindy fonts-freefont-otf fonts-dejavu-core
# (and poppler-utils for tests/test_pdf.py).
#
# Run it BEFORE the HTML build (`jupyter-book build . -n -W --keep-going`): the HTML build
# leaves _build/html/_pdf/ in place, and the two builders must not share Sphinx's
# pickled environment, so _build/.doctrees is removed here.  Sphinx's -W does not see
# LaTeX's own warnings, so the LaTeX log is checked for undefined references and
# citations (they print as "??" in the PDF).
set -euo pipefail
cd "$(dirname "$0")/.."

name=seqrmt-book
start=$(date +%s)
jupyter-book build . --builder pdflatex -n -W --keep-going
rm -rf _build/.doctrees

pdf=_build/latex/$name.pdf
log=_build/latex/$name.log
test -s "$pdf" || { echo "no PDF produced: $pdf" >&2; exit 1; }
if grep -nE "LaTeX Warning: (Reference|Citation|Hyper reference).*undefined|There were undefined references" "$log"; then
    echo "undefined references in $log (they print as ?? in the PDF)" >&2
    exit 1
fi
mkdir -p _build/html/_pdf
cp "$pdf" _build/html/_pdf/
echo "PDF: _build/html/_pdf/$name.pdf ($(pdfinfo "$pdf" 2>/dev/null | awk '/^Pages:/ {print $2}') pages, built in $(( $(date +%s) - start )) s)"
