#!/usr/bin/env python
"""Collect what a version's release carries from the assembled site (``scripts/publish.py``).

::

    python scripts/release_assets.py _build/site _build/release

copies into the second folder (emptied first) the PDF edition, the notebooks zip and the archives
of this version's website (each edition), as files whose names say the version:
``seqrmt-book-<version>.pdf``, ``seqrmt-notebooks-<version>.zip`` and
``seqrmt-book-<version>-<edition>-site.zip``.  The publish workflow attaches them to the release
of a version tag.  A missing PDF or zip is an error (a release without them would be silent about
it); ``--no-pdf`` allows a release without the PDF.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def assets(site: Path, version: str, *, pdf: bool = True) -> dict[str, Path]:
    """The release's files (name in the release -> file of the assembled ``site``).

    Raises
    ------
    FileNotFoundError
        The site lacks the PDF (unless ``pdf=False``), the notebooks zip or this version's archives.
    """
    site = Path(site)
    wanted = {f"seqrmt-notebooks-{version}.zip": site / "_downloads" / "seqrmt-notebooks.zip"}
    if pdf:
        wanted[f"seqrmt-book-{version}.pdf"] = site / "_pdf" / "seqrmt-book.pdf"
    archives = sorted((site / "editions").glob(f"seqrmt-book-{version}-*-site.zip"))
    if not archives:
        raise FileNotFoundError(f"{site}/editions/ has no archive of version {version}")
    wanted.update({a.name: a for a in archives})
    missing = [str(path) for path in wanted.values() if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"not in the assembled site: {', '.join(missing)}")
    return wanted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the assembled site (scripts/publish.py OUT)")
    parser.add_argument("out", type=Path, help="the folder of the release's files (emptied first)")
    parser.add_argument("--no-pdf", action="store_true", help="a release without the PDF edition")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from seqrmt_book.editions import book_version

    try:
        files = assets(args.site, book_version(ROOT), pdf=not args.no_pdf)
    except FileNotFoundError as error:
        print(f"release_assets: {error}", file=sys.stderr)
        return 1
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    for name, path in files.items():
        shutil.copy2(path, args.out / name)
        print(f"{args.out / name} ({path.stat().st_size / 2**20:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
