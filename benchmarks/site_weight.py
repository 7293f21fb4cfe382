"""Weight, first paint and accessibility of the built book, page by page.

Measures a built site (default ``_build/html``) in headless Chromium (the system
``/usr/bin/chromium`` through the Python ``playwright`` package), served by a local
``http.server`` on 127.0.0.1 as a static host serves it (text files gzip-compressed;
``--no-gzip`` serves them raw, like ``python -m http.server``):

* **MB on first visit**: bytes received (CDP ``Network.loadingFinished``
  ``encodedDataLength``) with a cold cache, after the page has loaded, been scrolled to
  the bottom (so lazy images load) and its widgets have rendered;
* **first and largest contentful paint and total blocking time on a slow phone
  link** (``site_checks.measure_main_thread``): a second cold-cache visit with
  CDP ``Network.emulateNetworkConditions`` (1.6 Mbit/s down, 750 kbit/s up, 150 ms
  round trip) and ``Emulation.setCPUThrottlingRate`` 4, FCP read from
  ``performance.getEntriesByName('first-contentful-paint')``;
* **axe-core** (WCAG 2.0/2.1 A and AA rules) critical and serious violations
  (rule ids and node counts);
* **alt texts**: images without an alt attribute, and images whose alt text is a
  file name or path (``*.png``, a 32+ character hash) or is empty on a figure that
  carries information;
* **equation tab stops**: typeset equations (``mjx-container``) in the tab order
  (``tabindex >= 0``), and how many Tab presses reach the first slider.

Usage (from the repository root)::

    python benchmarks/site_weight.py                      # every page of _build/html
    python benchmarks/site_weight.py --html /tmp/x/_build/html --pages intro book/03_bbp
    python benchmarks/site_weight.py --json out.json      # also write the numbers
    python benchmarks/site_weight.py --no-throttle        # skip the slow first-paint run
    python benchmarks/site_weight.py --serve 8000         # only serve the site (for Lighthouse)

axe-core is read from ``tests/browser/vendor/axe.min.js`` (vendored from npm by
``scripts/vendor_assets.sh``).  Lighthouse is not run here (see README.md, "Site").
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "browser"), str(ROOT / "tests")]  # conftest imports site_build

from conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402
from site_checks import (  # noqa: E402
    AXE_JS,
    JS_ALT_AUDIT,
    JS_MATH_TABSTOPS,
    SLOW_PHONE,
    StaticHostHandler,
    measure_main_thread,
    run_axe,
    tab_presses_to_slider,
    wait_settled,
)

CHAPTERS = re.compile(r"^book/0[1-9]")


def _serve(html: Path, compress: bool = True, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler_class = type("Host", (StaticHostHandler,), {"compress": compress})
    handler = functools.partial(handler_class, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _pages(html: Path) -> list[str]:
    pages = []
    for p in sorted(html.rglob("*.html")):
        rel = p.relative_to(html).as_posix()
        if rel.startswith(("_", "genindex", "search")) or rel.endswith("-state.html"):
            continue
        if rel.startswith("book/") or rel == "intro.html":
            pages.append(rel[:-5])
    pages.sort(key=lambda p: (p != "intro" and p != "index", p))
    return [p for p in pages if p != "index"]


def measure_page(browser, url: str, throttle: bool, contrast: bool = True) -> dict:
    out: dict = {}
    # 1. cold visit, no throttling: bytes, axe, alt texts, tab stops
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    sizes: dict[str, float] = {}
    kinds: dict[str, str] = {}
    urls: dict[str, str] = {}
    cdp.on(
        "Network.responseReceived",
        lambda e: (
            kinds.__setitem__(e["requestId"], e["type"]),
            urls.__setitem__(e["requestId"], e["response"]["url"]),
        ),
    )
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    t0 = time.perf_counter()
    page.goto(url, wait_until="load", timeout=180_000)
    wait_settled(page, timeout_ms=180_000)
    page.wait_for_load_state("networkidle", timeout=180_000)
    out["load_s"] = round(time.perf_counter() - t0, 2)
    total = sum(sizes.values())
    by_kind: dict[str, float] = {}
    for rid, b in sizes.items():
        by_kind[kinds.get(rid, "Other")] = by_kind.get(kinds.get(rid, "Other"), 0) + b
    out["requests"] = len(sizes)
    out["mb"] = round(total / 1e6, 2)
    out["mb_by_type"] = {k: round(v / 1e6, 3) for k, v in sorted(by_kind.items(), key=lambda x: -x[1])}
    out["largest"] = sorted(
        ((round(b / 1e6, 3), urls.get(rid, "?").rsplit("/", 1)[-1][:60]) for rid, b in sizes.items()), reverse=True
    )[:5]
    axe = run_axe(page, skip=[] if contrast else ["color-contrast"])
    out["axe_nodes"] = sum(v["nodes"] for v in axe)
    out["axe"] = {v["id"]: v["nodes"] for v in axe}
    out["alt"] = page.evaluate(JS_ALT_AUDIT)
    out["math_tabstops"] = page.evaluate(JS_MATH_TABSTOPS)
    out["tabs_to_first_slider"] = tab_presses_to_slider(page)
    ctx.close()
    # 2. cold visit on the slow phone link
    if throttle:
        ctx = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, device_scale_factor=3, service_workers="block"
        )
        slow = measure_main_thread(ctx, url, SLOW_PHONE)
        ctx.close()
        out["fcp_slow_s"] = round(slow["fcp"] / 1000, 2)
        out["lcp_slow_s"] = round(slow["lcp"] / 1000, 2)
        out["tbt_slow_ms"] = round(slow["tbt"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    ap.add_argument("--pages", nargs="*", help="pages without .html (default: all)")
    ap.add_argument("--no-throttle", action="store_true")
    ap.add_argument(
        "--no-gzip",
        action="store_true",
        help="serve uncompressed, like `python -m http.server` (default: gzip, like a static host)",
    )
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--fcp-pages", nargs="*", help="measure the slow-link first paint on these pages only (default: all)"
    )
    ap.add_argument(
        "--contrast-pages", nargs="*", help="run axe's slow color-contrast rule on these pages only (default: all)"
    )
    ap.add_argument(
        "--serve",
        type=int,
        metavar="PORT",
        help="only serve the site on 127.0.0.1:PORT (as measured here) until Ctrl-C, e.g. for Lighthouse",
    )
    args = ap.parse_args()
    if args.serve is not None:
        server, base = _serve(args.html, compress=not args.no_gzip, port=args.serve)
        print(
            f"serving {args.html} at {base}/ ({'uncompressed' if args.no_gzip else 'gzip'}); Ctrl-C stops", flush=True
        )
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            server.shutdown()
        return 0
    if not AXE_JS.is_file():
        print(f"missing {AXE_JS}: run scripts/vendor_assets.sh", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    server, base = _serve(args.html, compress=not args.no_gzip)
    pages = args.pages or _pages(args.html)
    results: dict[str, dict] = {}
    print(f"load average {os.getloadavg()[0]:.1f}; site {args.html}; {'uncompressed' if args.no_gzip else 'gzip'}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        for name in pages:
            throttle = not args.no_throttle and (args.fcp_pages is None or name in args.fcp_pages)
            contrast = args.contrast_pages is None or name in args.contrast_pages
            r = measure_page(browser, f"{base}/{name}.html", throttle=throttle, contrast=contrast)
            results[name] = r
            alt = r["alt"]
            print(
                f"{name:32s} {r['mb']:5.2f} MB {r['requests']:3d} req  slow link: FCP "
                f"{r.get('fcp_slow_s', float('nan')):4.1f} s LCP {r.get('lcp_slow_s', float('nan')):4.1f} s "
                f"TBT {r.get('tbt_slow_ms', float('nan')):5.0f} ms {'' if contrast else '(no contrast rule) '}  axe {r['axe_nodes']:3d} {r['axe']}  "
                f"img {alt['images']} bad-alt {alt['bad']}  math-tab {r['math_tabstops']}  "
                f"tabs->slider {r['tabs_to_first_slider']}",
                flush=True,
            )
        browser.close()
    server.shutdown()
    chapters = {k: v for k, v in results.items() if CHAPTERS.match(k)}
    summary = {
        "pages": len(results),
        "axe_nodes_total": sum(r["axe_nodes"] for r in results.values()),
        "bad_alt_total": sum(r["alt"]["bad"] for r in results.values()),
        "images_total": sum(r["alt"]["images"] for r in results.values()),
        "math_tabstops_total": sum(r["math_tabstops"] for r in results.values()),
        "mb_chapter_min": min((r["mb"] for r in chapters.values()), default=None),
        "mb_chapter_max": max((r["mb"] for r in chapters.values()), default=None),
    }
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "pages": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
