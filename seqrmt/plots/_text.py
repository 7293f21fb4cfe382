"""What both the figures' style (:mod:`._style`) and their readability check (:mod:`._check`) need:
the width of the phone column (from :mod:`seqrmt.columns`) and the plain-text reading of a matplotlib
label.  Imports nothing of :mod:`seqrmt.plots`, so that ``_style`` (which renders through the check)
and ``_check`` (which reads labels and sizes them for the phone column) both import downwards."""

from __future__ import annotations

import re

from ..columns import PHONE_COLUMN_PX

#: Width in CSS pixels of the text column on the phone the figures are drawn for
#: (:data:`seqrmt.columns.PHONE_COLUMN_PX`, which the site's stylesheet also reads).
COLUMN_PX = PHONE_COLUMN_PX

_TEX = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "Delta": "Δ",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "rho": "ρ",
    "tau": "τ",
    "theta": "θ",
    "zeta": "ζ",
    "xi": "ξ",
    "Sigma": "Σ",
    "sigma": "σ",
    "varphi": "φ",
    "phi": "φ",
    "psi": "ψ",
    "pi": "π",
    "epsilon": "ε",
    "varepsilon": "ε",
    "eta": "η",
    "omega": "ω",
    "infty": "∞",
    "pm": "±",
    "times": "×",
    "cdot": "·",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "approx": "≈",
    "to": "→",
    "top": "T",
    "ell": "ℓ",
    "sqrt": "√",
    "langle": "⟨",
    "rangle": "⟩",
    "quad": " ",
    "mid": "|",
    "neq": "≠",
    "ne": "≠",
    "sim": "~",
    "propto": "∝",
    "max": "max",
    "min": "min",
    "log": "log",
    "exp": "exp",
    "sup": "sup",
    "inf": "inf",
    "det": "det",
    "Pr": "Pr",
    "star": "*",
    "ast": "*",
    "prime": "′",
    "dots": "…",
    "ldots": "…",
    "cdots": "…",
    "in": "∈",
    "sum": "Σ",
    "boxtimes": "⊠",
}
_DROP = (
    "mathrm",
    "mathbf",
    "mathcal",
    "mathbb",
    "text",
    "operatorname",
    "tilde",
    "hat",
    "bar",
    "widetilde",
    "boldsymbol",
    "rm",
    "mathit",
    "left",
    "right",
    "big",
    "Big",
    "displaystyle",
    "mathsf",
    "bf",
    "it",
    "mathdefault",
)


def plain_text(s: str) -> str:
    r"""A readable, screen-reader friendly version of a matplotlib (mathtext) label.

    ``r"$\lambda_{\max}/\kappa$"`` becomes ``"λ max/κ"``: TeX commands become
    Unicode symbols, sub/superscript marks and braces are dropped.
    """
    s = str(s)

    def command(m: "re.Match[str]") -> str:
        name = m.group(1)
        if name in _TEX:
            return _TEX[name]
        if name in _DROP:
            return ""
        return name

    s = re.sub(r"\\([A-Za-z]+)", command, s)
    s = re.sub(r"\\([,;:! ])", " ", s)
    s = re.sub(r"\\([%{}|#&_$])", lambda m: {"|": "‖"}.get(m.group(1), m.group(1)), s)
    s = re.sub(r"\^\{?2\}?(?![0-9])", "²", s)
    s = re.sub(r"_\{([^{}]*)\}", r" \1", s)
    s = re.sub(r"(?<=\S)_(\w)", r" \1", s)
    s = re.sub(r"\^\{([^{}]*)\}", r"^\1", s)
    s = s.replace("$", "").replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"\s+", " ", s).strip()
