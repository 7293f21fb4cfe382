#!/usr/bin/env bash
# Run one command in the book's virtual environment (.venv, made by scripts/setup_env.sh), from
# the repository's root: the workflows' steps call the repository's scripts through it, e.g.
#   scripts/in_env.sh python scripts/publish.py _build/site
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    echo "usage: scripts/in_env.sh COMMAND [ARGUMENT...]" >&2
    exit 2
fi
# shellcheck disable=SC1091
source .venv/bin/activate
exec "$@"
