#!/usr/bin/env python
"""Assemble the whole published site, exactly as it is deployed, in one folder.

::

    python scripts/publish.py _build/site            # everything (the PDF needs TeX)
    python scripts/publish.py _build/site --no-pdf   # without TeX: no PDF, and no link to it

First every notebook whose cached execution is missing or stale is executed, two kernels at a time,
into the execution cache (``scripts/execute_notebooks.py``; nothing when the cache is warm).  Then
each step takes every notebook's outputs from that cache (``_build/.jupyter_cache``,
``seqrmt_book/cache.py``), so that nothing is executed twice; steps 2-4 run on two lines side by side
(the website, its math check, the slides and then the students' PDF on one; the full PDF and then
the students' website on the other: :func:`build_site`):

1. the problem sets' students' notebooks (and the released solutions) and the notebooks zip
   (``scripts/build_downloads.py --no-sites``, which generates the sets with ``problems/generate.py``
   when they are stale);
2. the PDF edition (``scripts/build_pdf.sh``) beside the website (the README's build command, with
   ``SEQRMT_PRODUCTS`` declaring the products made after it, so that the pages link to them:
   ``seqrmt_book/products.py``), whose math is then checked (``python -m seqrmt_book.typeset --check``);
3. the lecture slides (``scripts/build_slides.py``);
4. the students' edition (``scripts/build_students.sh``), with the students' notebooks of the sets;
5. the archive of each edition's website (``scripts/build_downloads.py --sites-only``: the frozen
   editions, ``_build/editions/``, which keeps the archives of earlier versions);
6. the students' edition and the frozen editions placed beside the website, in
   ``_build/html/students/`` and ``_build/html/editions/`` (with a page that lists them), so that the
   built website carries everything its pages link;
7. the site: that website copied to ``OUT``;
8. a link check of every page of ``OUT``, offline (:func:`check_links`: every page, every stylesheet
   they load, every file these name): a broken internal link or a missing file fails the command.

The folder works from any static host, at its root or under a subpath (every link of the site is
relative).  A summary (size, pages, links checked, seconds) is printed and written to
``_build/reports/publish.json``.  ``GITHUB_REPOSITORY`` (set in a GitHub workflow) makes the site
name that repository (``seqrmt_book/repository.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
SITE = BUILD / "html"
STUDENTS_SITE = BUILD / "students" / "_build" / "html"
EDITIONS = BUILD / "editions"
REPORT = BUILD / "reports" / "publish.json"
#: The products the full edition carries that are made after its website (``SEQRMT_PRODUCTS``), but
#: the PDF; the downloads are made before it (the released solutions of the sets are linked when there).
FULL_PRODUCTS = ("slides", "students", "editions")


@dataclass
class LinkReport:
    """What the link check of a folder found."""

    pages: int = 0
    checked: int = 0
    broken: list[tuple[str, str, str]] = field(default_factory=list)  # (url, parent page, result)

    def summary(self) -> str:
        return f"{self.pages} pages, {self.checked} distinct files and links checked, {len(self.broken)} broken"


def pages(folder: Path) -> list[Path]:
    """Every HTML page under ``folder``, but the themes' Jinja macro files that they copy into
    ``_static/`` (``webpack-macros.html``: templates, never served as pages)."""
    folder = Path(folder)
    return sorted(p for p in folder.rglob("*.html") if "_static" not in p.relative_to(folder).parts)


#: The attributes of a page that name a file or a page: ``(tag, attribute)``; ``srcset`` lists several.
_URL_ATTRIBUTES = {
    ("a", "href"), ("area", "href"), ("link", "href"), ("script", "src"), ("img", "src"), ("img", "srcset"),
    ("source", "src"), ("source", "srcset"), ("iframe", "src"), ("embed", "src"), ("object", "data"),
    ("video", "src"), ("video", "poster"), ("audio", "src"), ("track", "src"), ("input", "src"),
}  # fmt: skip
#: ``url(...)`` and ``@import "..."`` in a stylesheet, a ``<style>`` element or a ``style`` attribute.
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')""")


def css_references(text: str) -> list[str]:
    """The addresses a stylesheet names (``url(...)``, ``@import``), in order."""
    return [next(g for g in m.groups() if g is not None) for m in _CSS_URL.finditer(text)]


class PageReferences(html.parser.HTMLParser):
    """What an HTML page names: ``links`` (``<a>``, ``<area>``: pages a reader goes to) and ``assets``
    (what the page loads or offers: stylesheets, icons, scripts, images with their ``srcset``, frames,
    media, a ``<meta http-equiv="refresh">`` target, and the ``url(...)`` of its inline styles)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.assets: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if not value:
                continue
            if (tag, name) in _URL_ATTRIBUTES:
                if name == "srcset":
                    self.assets += [part.split()[0] for part in value.split(",") if part.strip()]
                else:
                    (self.links if tag in ("a", "area") else self.assets).append(value.strip())
            elif name == "style":
                self.assets += css_references(value)
        fields = dict(attrs)
        if tag == "meta" and (fields.get("http-equiv") or "").lower() == "refresh":
            target = re.search(r"url\s*=\s*['\"]?([^'\";]+)", fields.get("content") or "", re.I)
            if target:
                self.assets.append(target.group(1).strip())
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.assets += css_references(data)


def page_references(page: Path) -> PageReferences:
    """The links and assets of the HTML page ``page`` (:class:`PageReferences`)."""
    parser = PageReferences()
    parser.feed(Path(page).read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser


def _local_target(folder: Path, parent: Path, url: str) -> Path | None:
    """The file of ``folder`` that ``url``, named in the file ``parent``, points to (a folder's
    ``index.html``), or ``None`` for an address that is not a file of the site (another scheme or
    host, ``data:``, a fragment of the same page).  A path that leaves ``folder`` (``../`` too far,
    or root-absolute: the site may be served under a subpath) gives a path outside ``folder``."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    # root-absolute: outside the folder, whatever the folder holds
    target = Path(os.path.normpath(path if path.startswith("/") else parent.parent / path))
    if path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target


def check_links(folder: Path) -> LinkReport:
    """Check every link and every file that the pages under ``folder`` load, offline.

    Starting from every page, each page's links and assets (:class:`PageReferences`) and the
    ``url(...)`` and ``@import`` of every stylesheet it loads (fonts and images named by the
    stylesheets) are resolved to files, and pages and stylesheets reached are read in turn.  A
    reference is broken when its file is missing, or lies outside ``folder`` (a relative path that
    climbs out of it, or a root-absolute one, which breaks the site served under a subpath).
    Addresses with a scheme or a host (the weekly workflow checks the external ones), ``data:``
    and fragments of the same page are left alone.  ``checked`` counts the distinct files reached.

    Raises
    ------
    ValueError
        ``folder`` has no HTML page.
    """
    folder = Path(folder).resolve()
    start = pages(folder)
    if not start:
        raise ValueError(f"folder={folder}: no HTML page to check")
    report = LinkReport(pages=len(start))
    seen: set[Path] = set()
    todo = list(start)
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current.suffix == ".css":
            refs = css_references(current.read_text(encoding="utf-8", errors="replace"))
        elif current.suffix in (".html", ".htm"):
            found = page_references(current)
            refs = found.links + found.assets
        else:
            continue
        for url in refs:
            target = _local_target(folder, current, url)
            if target is None:
                continue
            inside = target.is_relative_to(folder)
            if inside and target.is_file():
                todo.append(target)  # read once: the loop skips what it has seen
                continue
            result = "missing file" if inside else "outside the site's folder"
            report.broken.append((url, current.relative_to(folder).as_posix(), result))
    report.checked = len(seen)
    return report


def fingerprint(folder: Path) -> str:
    """A digest of the files under ``folder``: each one's path, size and modification time.  The link
    check's report (``publish.json``) carries it, so that a later reader of the report knows it was
    made on these very files (:func:`recorded_link_report`)."""
    folder = Path(folder)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        st = path.stat()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def recorded_link_report(folder: Path, report_file: Path = REPORT) -> LinkReport | None:
    """The link check that :func:`main` ran on ``folder``, read from its report, when the folder's files
    are still the ones it checked (same :func:`fingerprint`); ``None`` otherwise (no report, another
    folder, or a file added, removed or changed since)."""
    try:
        summary = json.loads(Path(report_file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if summary.get("fingerprint") != fingerprint(folder) or "broken_links" not in summary:
        return None
    broken = [tuple(b) for b in summary["broken_links"]]
    return LinkReport(pages=summary["pages"], checked=summary["links_checked"], broken=broken)


def _run(cmd: list[str], log: Path | None = None, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    merged = {**os.environ, **(env or {})}
    if log is None:
        subprocess.run(cmd, cwd=ROOT, env=merged, check=True)
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w", encoding="utf-8") as out:
        done = subprocess.run(cmd, cwd=ROOT, env=merged, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        print(log.read_text(encoding="utf-8")[-8000:], file=sys.stderr)
        raise subprocess.CalledProcessError(done.returncode, cmd)


def build_site(pdf: bool) -> None:
    """The executions, then steps 1-5: the downloads; the websites and the slides beside the PDFs;
    the archives of the editions.

    Two lines of work share the two cores once every notebook is executed (each step takes the
    outputs from the cache, so the steps are independent of each other): in the foreground the
    website's build (about 60 s on a 2-core machine), its math check and the slides, then the
    students' PDF (about 95 s); in a background thread the full PDF (about 110 s, most of it
    xelatex), then the students' website (about 60 s; ``scripts/build_students.sh --website``,
    linking the PDF that ``--pdf`` builds).  Each line takes about 170 s; with the two PDFs on one
    line (210 s) the other waited a minute for it, and one after the other took 40 s more again."""
    declared = ",".join((*FULL_PRODUCTS, "pdf") if pdf else FULL_PRODUCTS)
    logs = BUILD / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    # the builds below run side by side: each would execute a stale notebook on its own
    _run([sys.executable, "scripts/execute_notebooks.py", "--jobs", "2"])
    _run([sys.executable, "scripts/build_downloads.py", "--no-sites"])
    # the students' edition serves the same students' notebooks of the sets (they hold no solution)
    target = STUDENTS_SITE / "_downloads" / "problems"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(SITE / "_downloads" / "problems", target)
    website = (["scripts/build_students.sh", "--website" if pdf else "--html"], "students.log")
    failed: list[BaseException] = []

    def logged(cmd: list[str], log: str) -> None:
        """``cmd`` with its output in ``_build/logs/<log>``, of which the last line is printed."""
        _run(cmd, log=logs / log)
        print((logs / log).read_text(encoding="utf-8").strip().splitlines()[-1], flush=True)

    def background() -> None:
        try:
            logged(["scripts/build_pdf.sh"], "pdf.log")
            logged(*website)
        except BaseException as err:  # reported by the main thread
            failed.append(err)

    line = threading.Thread(target=background, name="pdf-students-website") if pdf else None
    if line is not None:
        line.start()
    try:
        _run(
            ["scripts/without_system_node.sh", "jupyter-book", "build", ".", "-n", "-W", "--keep-going"],
            env={"SEQRMT_PRODUCTS": declared},
        )
        _run([sys.executable, "-m", "seqrmt_book.typeset", "--check", str(SITE)])
        _run([sys.executable, "scripts/build_slides.py"])
        logged(*((["scripts/build_students.sh", "--pdf"], "students-pdf.log") if pdf else website))
    finally:
        if line is not None:
            line.join()
    if failed:
        raise failed[0]
    _run([sys.executable, "scripts/build_downloads.py", "--sites-only"])


def editions_page(folder: Path, version: str) -> Path:
    """``folder/index.html``: the archives of the editions in ``folder``, newest version first."""
    rows = []
    for path in sorted(Path(folder).glob("seqrmt-book-*-site.zip"), key=lambda p: p.name, reverse=True):
        stem = path.name.removeprefix("seqrmt-book-").removesuffix("-site.zip")
        number, _, edition = stem.rpartition("-")
        size = f"{path.stat().st_size / 2**20:.1f} MB"
        rows.append(
            f'<li><a href="{html.escape(path.name, quote=True)}">version {html.escape(number)}, '
            f"{html.escape(edition)} edition</a> ({size}, a zip of the website)</li>"
        )
    body = "\n".join(rows) or "<li>No archive yet.</li>"
    page = Path(folder) / "index.html"
    page.write_text(
        f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Frozen editions - How does attention help? A random-matrix textbook</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 42rem; margin: 2rem auto; padding: 0 1rem;
line-height: 1.5; }} a {{ color: #0b5cad; }} @media (prefers-color-scheme: dark) {{ body {{ background: #121212;
color: #e8e8e8; }} a {{ color: #8ab4f8; }} }}</style>
</head>
<body>
<main>
<h1>Frozen editions</h1>
<p>Each archive is the whole website of one version of the book (the current one is {html.escape(version)}),
as it was published: unzip it and open <code>html/index.html</code>. A syllabus that cites theorem,
exercise or figure numbers can point to the edition it was written for.</p>
<ul>
{body}
</ul>
<p><a href="../book/intro.html">Back to the book</a></p>
</main>
</body>
</html>
""",
        encoding="utf-8",
    )
    return page


def place_beside(site: Path = SITE, *, students: Path = STUDENTS_SITE, editions: Path = EDITIONS) -> None:
    """Step 6: the students' edition in ``site/students/`` and the archives of the editions in
    ``site/editions/`` (with their page), so that the built website carries every product it links."""
    from seqrmt_book.products import EDITION_FOLDERS

    site = Path(site)
    for name in EDITION_FOLDERS:
        shutil.rmtree(site / name, ignore_errors=True)
    if (Path(students) / "index.html").is_file():
        shutil.copytree(students, site / "students", ignore=_IGNORE)
    (site / "editions").mkdir()
    for archive in sorted(Path(editions).glob("seqrmt-book-*-site.zip")) if Path(editions).is_dir() else []:
        shutil.copy2(archive, site / "editions" / archive.name)
    from seqrmt_book.editions import book_version

    editions_page(site / "editions", book_version(ROOT))


#: What a built website holds that is not served (Sphinx's and the slides' build records).
_IGNORE = shutil.ignore_patterns(".buildinfo", ".doctrees", "build.json")


def assemble(out: Path, *, full: Path = SITE) -> Path:
    """Step 7: the built website ``full`` (with what :func:`place_beside` put there) copied to
    ``out``, as a static host serves it.  ``out`` is replaced.

    Raises
    ------
    ValueError
        ``out`` is the repository, one of its sources, or holds a built edition; or ``full`` has
        no website.
    """
    out = Path(out).resolve()
    if not (Path(full) / "index.html").is_file():
        raise ValueError(f"full={full}: no built website (index.html); build the book first")
    if out == ROOT or (ROOT in out.parents and not out.is_relative_to(BUILD)):
        raise ValueError(f"out={out}: the site goes into _build/ or outside the repository, not into its sources")
    if out in (Path(full).resolve(), BUILD, *(Path(full).resolve().parents)):
        raise ValueError(f"out={out}: must not be or hold the folder of a built edition")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(full, out, ignore=_IGNORE)
    # GitHub Pages: serve the folders that begin with an underscore (_static, _downloads, ...) as they are
    (out / ".nojekyll").write_text("", encoding="utf-8")
    return out


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder of the assembled site (replaced), e.g. _build/site")
    parser.add_argument("--no-pdf", action="store_true", help="no PDF edition (no TeX): the pages do not link one")
    parser.add_argument(
        "--assemble-only", action="store_true", help="assemble and check what is built, build nothing (steps 6-8)"
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    if not args.no_pdf and not args.assemble_only and shutil.which("xelatex") is None:
        parser.error("the PDF edition needs TeX (xelatex; see CONTRIBUTING.md), or pass --no-pdf")
    try:
        if not args.assemble_only:
            build_site(pdf=not args.no_pdf)
        place_beside()
        out = assemble(args.out)
    except (subprocess.CalledProcessError, ValueError) as error:
        print(f"publish: {error}", file=sys.stderr)
        return 1
    report = check_links(out)
    seconds = time.monotonic() - start
    summary = {
        "out": str(args.out),
        "bytes": folder_size(out),
        "files": sum(1 for p in out.rglob("*") if p.is_file()),
        "pages": report.pages,
        "links_checked": report.checked,
        "broken": len(report.broken),
        "broken_links": [list(b) for b in report.broken],
        "seconds": round(seconds, 1),
        "fingerprint": fingerprint(out),
    }
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    for url, parent, result in report.broken[:50]:
        print(f"broken: {url} (in {parent}): {result}", file=sys.stderr)
    print(
        f"site: {args.out} ({summary['bytes'] / 2**20:.0f} MB, {summary['files']} files); "
        f"links: {report.summary()}; {seconds:.0f} s"
    )
    return 1 if report.broken else 0


if __name__ == "__main__":
    sys.exit(main())
