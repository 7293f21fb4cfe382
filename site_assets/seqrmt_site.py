"""Tiny Sphinx extension that keeps the seqrmt book self-contained and error-free.

Registered in ``_config.yml`` under ``sphinx: local_extensions: {seqrmt_site: site_assets/}``.
On every HTML page it

* drops duplicated ``<script>`` entries (Jupyter Book 1 registers the
  ``sphinx-thebe`` configuration script twice, so every page raised
  ``Identifier 'THEBE_JS_URL' has already been declared`` in the console), and
* when the thebe launch button is disabled (``launch_buttons: thebe: false``), drops
  the thebe scripts and stylesheet altogether: they are unused and reference
  ``https://unpkg.com/thebe``, which an offline reader cannot reach.
"""

from __future__ import annotations

from typing import Any


def _filename(asset: Any) -> str:
    return str(getattr(asset, "filename", asset) or "")


def _attributes(asset: Any) -> dict[str, Any]:
    return dict(getattr(asset, "attributes", {}) or {})


def _is_thebe(asset: Any) -> bool:
    name = _filename(asset)
    body = str(_attributes(asset).get("body", ""))
    return "thebe" in name.rsplit("/", 1)[-1] or "THEBE_JS_URL" in body


def _thebe_enabled(app: Any) -> bool:
    options = getattr(app.config, "html_theme_options", {}) or {}
    launch = options.get("launch_buttons", {}) or {}
    return bool(launch.get("thebe", False))


def _clean_assets(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    drop_thebe = not _thebe_enabled(app)
    for key in ("script_files", "css_files"):
        assets = context.get(key)
        if not assets:
            continue
        seen: set[Any] = set()
        kept = []
        for asset in assets:
            ident = (_filename(asset), tuple(sorted((k, str(v)) for k, v in _attributes(asset).items())))
            if ident in seen or (drop_thebe and _is_thebe(asset)):
                continue
            seen.add(ident)
            kept.append(asset)
        context[key] = kept


def setup(app: Any) -> dict[str, Any]:
    # Run after the other extensions (myst-nb adds the widget scripts at priority 500).
    app.connect("html-page-context", _clean_assets, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
