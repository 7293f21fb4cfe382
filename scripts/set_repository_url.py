#!/usr/bin/env python3
"""Set the public repository URL of the book in the one place it is defined.

The URL is ``repository.url`` in ``_config.yml``; the launch buttons (Binder, repository)
are built from it.  The README badge, ``CITATION.cff`` and the install cell at the top of
each chapter notebook repeat it, so this script writes all of them, and
``tests/test_repository_url.py`` checks that they agree.

    python scripts/set_repository_url.py https://github.com/<owner>/<name>
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_GITHUB = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+$")


def current() -> str:
    """The URL in ``_config.yml``."""
    match = re.search(r"^repository:\s*\n\s+url:\s*(\S+)", (ROOT / "_config.yml").read_text(), re.M)
    if match is None:
        raise SystemExit("_config.yml has no repository: url: entry")
    return match.group(1)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not _GITHUB.match(argv[0].rstrip("/")):
        print(__doc__)
        print("error: give one URL of the form https://github.com/<owner>/<name>")
        return 2
    new, old = argv[0].rstrip("/"), current()
    old_slug, new_slug = old.removeprefix("https://github.com/"), new.removeprefix("https://github.com/")
    notebooks = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "book").glob("*.ipynb"))
    for name in ("_config.yml", "README.md", "CITATION.cff", *notebooks):
        path = ROOT / name
        text = path.read_text().replace(old, new).replace(f"/gh/{old_slug}/", f"/gh/{new_slug}/")
        path.write_text(text)
        print(f"updated {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
