"""Sphinx extension: a page's stylesheets in one file.

Sphinx and the extensions link up to a dozen small stylesheets from every page (Pygments, the
book theme, togglebutton, copybutton, MyST-NB, sphinx-proof, sphinx-exercise, the math, the
site's own); each is a request that the first paint waits for, which on a slow phone link costs
more than the bytes (Lighthouse, mobile: the first paint 0.4 s later than with one file).  So:

* while a page is rendered (``html-page-context``, after every extension has added its own), the
  page's local stylesheets are replaced, in their order, by one *bundle*
  ``_static/seqrmt/bundles/<digest>.css``, where the digest names the list of files (pages that
  load the same files share a bundle; the browser caches it once);
* after the build (``build-finished``, once Sphinx has copied the static files), every bundle is
  written from its files as they are now: concatenated in order, each ``url(...)`` rewritten
  for the bundle's folder (parsed with tinycss2, not matched).  A bundle's list is kept beside it
  (``<digest>.json``, :func:`bundle_files`), so that an incremental build rewrites the bundles of
  the pages it does not write too.

The two stylesheets the theme's template writes before the others (Sphinx's ``basic.css`` and the
theme's own, as :mod:`seqrmt_book.theme` cuts it; :data:`THEME_FILES`) open the bundle, and the
template (``_templates/layout.html``, block ``css``) then links neither: one request before the
first paint instead of three.  A stylesheet with an ``@import`` cannot be placed inside a bundle:
the build fails with its name.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from pathlib import Path
from typing import Any

#: The folder of the bundles, under the site's root.
BUNDLE_DIR = "_static/seqrmt/bundles"
#: What the theme's template links before every other stylesheet (``_templates/layout.html``).
THEME_FILES = ("_static/basic.css", "_static/seqrmt/pydata-sphinx-theme.css")
#: Set in a page's template context when its bundle opens with :data:`THEME_FILES`.
THEME_BUNDLED = "seqrmt_theme_bundled"
_STATE = "_seqrmt_bundles"


def bundle_path(files: list[str]) -> str:
    """The bundle of the stylesheets ``files`` (paths under the site's root, in order)."""
    digest = hashlib.sha256("\n".join(files).encode("utf-8")).hexdigest()[:16]
    return f"{BUNDLE_DIR}/{digest}.css"


def bundle_files(outdir: Path, href: str) -> list[str] | None:
    """The stylesheets inside the bundle that ``href`` (a link of a page, relative or not) names,
    read from the bundle's list in ``outdir``; ``None`` when ``href`` is not a bundle."""
    path = href.split("?")[0].split("#")[0]
    marker = BUNDLE_DIR + "/"
    if marker not in path or not path.endswith(".css"):
        return None
    name = path[path.index(marker) :]
    try:
        return list(json.loads((Path(outdir) / name[: -len(".css")]).with_suffix(".json").read_text("utf-8")))
    except (OSError, ValueError):
        return None


def page_stylesheets(outdir: Path, page: str, tree: Any) -> list[str]:
    """The stylesheets a page of the site loads, each a path under the site's root, a bundle
    replaced by its files: ``page`` is the page's path under ``outdir`` and ``tree`` its parsed
    HTML (BeautifulSoup)."""
    from urllib.parse import urlsplit

    found: list[str] = []
    for link in tree.find_all("link"):
        rel = link.get("rel") or []
        href = link.get("href", "")
        if "stylesheet" not in (rel if isinstance(rel, list) else rel.split()) or not href:
            continue
        url = urlsplit(href)
        if url.scheme or url.netloc:
            continue
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), url.path))
        found.extend(bundle_files(outdir, path) or [path])
    return found


def _bundled(asset: Any) -> str | None:
    """The path of a stylesheet asset that goes into a bundle: local, a plain stylesheet for every medium."""
    name = str(getattr(asset, "filename", "") or "").split("?")[0]
    attrs = dict(getattr(asset, "attributes", {}) or {})
    if not name or "://" in name or name.startswith("//"):
        return None
    if attrs.get("rel", "stylesheet") != "stylesheet" or attrs.get("media") not in (None, "all", "screen"):
        return None
    return name


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    assets = sorted(context.get("css_files") or [], key=lambda a: getattr(a, "priority", 500))
    named = [(asset, _bundled(asset)) for asset in assets]
    files = [name for _, name in named if name]
    if not files:
        return
    files = [*THEME_FILES, *files]
    context[THEME_BUNDLED] = True
    path = bundle_path(files)
    getattr(app, _STATE).setdefault(path, files)
    first = next(asset for asset, name in named if name)
    bundle = type(first)(path, priority=getattr(first, "priority", 500), rel="stylesheet", type="text/css")
    out, placed = [], False
    for asset, name in named:
        if not name:
            out.append(asset)
        elif not placed:  # the bundle where its first file stood
            out.append(bundle)
            placed = True
    context["css_files"] = out


def rebase_urls(css: str, source: str, target: str) -> str:
    """The stylesheet ``css`` of the file ``source`` with every relative ``url(...)`` rewritten for a
    file at ``target`` (both paths under the site's root).  ``ValueError`` on an ``@import``."""
    import tinycss2

    def moved(url: str) -> str:
        if not url or url.startswith(("data:", "#", "/")) or ":" in url.split("/")[0]:
            return url
        cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
        where = posixpath.normpath(posixpath.join(posixpath.dirname(source), url[:cut]))
        return posixpath.relpath(where, posixpath.dirname(target)) + url[cut:]

    from tinycss2.ast import StringToken, URLToken
    from tinycss2.serializer import serialize_string_value, serialize_url

    def walk(tokens: list) -> None:
        for i, token in enumerate(tokens):
            kind = getattr(token, "type", "")
            if kind == "url":  # url(path): a new token (serialize writes its representation)
                value = moved(token.value)
                tokens[i] = URLToken(token.source_line, token.source_column, value, f"url({serialize_url(value)})")
            elif kind == "at-keyword" and token.lower_value == "import":
                raise ValueError(f"{source}: @import cannot be placed inside a bundle")
            elif kind == "function":
                if token.lower_name == "url":
                    for k, argument in enumerate(token.arguments):
                        if argument.type == "string":
                            value = moved(argument.value)
                            token.arguments[k] = StringToken(
                                argument.source_line,
                                argument.source_column,
                                value,
                                f'"{serialize_string_value(value)}"',
                            )
                walk(token.arguments)
            elif kind in ("() block", "[] block", "{} block"):
                walk(token.content)

    tokens = tinycss2.parse_component_value_list(css)
    walk(tokens)
    return tinycss2.serialize(tokens)


def write_bundle(outdir: Path, path: str, files: list[str]) -> None:
    """Write the bundle ``path`` of ``files`` (and its list) in ``outdir``."""
    outdir = Path(outdir)
    parts = []
    for name in files:
        source = outdir / name
        if not source.is_file():
            raise FileNotFoundError(f"{name}: a stylesheet of the bundle {path} is not in the site")
        text = source.read_text(encoding="utf-8").lstrip("\ufeff")
        parts.append(f"/* {name} */\n" + rebase_urls(text, name, path).strip() + "\n")
    target = outdir / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(parts), encoding="utf-8")
    target.with_suffix(".json").write_text(json.dumps(files, indent=0) + "\n", encoding="utf-8")


def _builder_inited(app: Any) -> None:
    setattr(app, _STATE, {})


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    outdir = Path(app.outdir)
    bundles = dict(getattr(app, _STATE, {}))
    for manifest in sorted((outdir / BUNDLE_DIR).glob("*.json")):
        path = f"{BUNDLE_DIR}/{manifest.stem}.css"
        files = bundle_files(outdir, path)
        # a bundle of pages not written this time, whose files are all still there
        if path not in bundles and files and all((outdir / name).is_file() for name in files):
            bundles[path] = files
    for path, files in sorted(bundles.items()):
        write_bundle(outdir, path, files)


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _builder_inited)
    # after every extension has added its stylesheets to the page
    app.connect("html-page-context", _page_context, priority=990)
    # after the extensions that write stylesheets at the end of the build (the math's: seqrmt_book.typeset)
    app.connect("build-finished", _build_finished, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": False}
