"""Render the README figure, docs/figure.png, from seqrmt.plots.

Usage (from the repository root):  python scripts/readme_figure.py

The figure is the simulated spectrum of the centered sample covariance of pooled
sequences (prefix model, optimal weights, d = 400) with the predicted bulk
kappa (MP_delta boxtimes MP_gamma) and the predicted signal outlier.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

OUT = Path(__file__).resolve().parents[1] / "docs" / "figure.png"
MAX_BYTES = 150_000


def main(out: Path = OUT) -> Path:
    import seqrmt.plots as srp

    fig = srp.spikes_spectrum(weights="optimal", beta=1.0, delta=0.5, gamma=0.25, d=400, seed=0)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    size = out.stat().st_size
    if size > MAX_BYTES:
        raise SystemExit(f"{out} is {size} bytes, above the {MAX_BYTES}-byte budget")
    return out


if __name__ == "__main__":
    path = main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
    print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
