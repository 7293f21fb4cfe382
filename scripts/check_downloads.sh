#!/usr/bin/env bash
# The notebooks zip as a reader gets it (scripts/build_downloads.py): unzipped into a scratch
# folder, its requirements installed into a fresh virtual environment (the light, readers' one,
# with nbval), then every chapter and every problem set of it run top to bottom with nbval, two
# notebooks at a time.  .ci/run runs this after the build; it needs the PyPI registry.
set -euo pipefail
cd "$(dirname "$0")/.."

zip=_build/html/_downloads/seqrmt-notebooks.zip
test -s "$zip" || { echo "no $zip: run python scripts/build_downloads.py" >&2; exit 1; }
work=_build/downloads-check
rm -rf "$work"
mkdir -p "$work"
python3 -m zipfile -e "$zip" "$work"
cd "$work/seqrmt-notebooks"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --no-compile -r requirements.txt nbval pytest pytest-xdist
# No seqrmt data cache of the build, no cache of pytest: as on a reader's machine.  Two kernels
# run at once on two cores, so each gets one BLAS thread (threaded BLAS in both made the run
# several times slower: the oversubscription the book's executor avoids the same way).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
SEQRMT_CACHE_DIR="" .venv/bin/python -m pytest -p no:cacheprovider --nbval-lax -n 2 --dist loadfile -q book problems
