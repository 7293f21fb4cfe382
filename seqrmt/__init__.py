"""seqrmt: random-matrix theory of pooled sequence embeddings.

The package behind the book "How does attention help?", which follows
M. E. A. Seddik, *How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models* (arXiv:2605.06826).
"""

from .model import *  # noqa: F401,F403
from .spectrum import *  # noqa: F401,F403
from .fixed_T_bulk import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .spikes import *  # noqa: F401,F403
from .fixed_T_spike import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .learning import *  # noqa: F401,F403
from .toolkit import *  # noqa: F401,F403


def _version() -> str:
    """The version, written once, in ``pyproject.toml``: from the installed package's metadata, or
    from ``pyproject.toml`` beside the package when it is imported from a source tree."""
    from importlib import metadata
    from pathlib import Path
    import re

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if pyproject.is_file():  # a source tree (an editable install included)
        m = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.M)
        if m:
            return m.group(1)
    try:
        return metadata.version("seqrmt")
    except metadata.PackageNotFoundError:  # pragma: no cover - neither installed nor a source tree
        return "unknown"


__version__ = _version()
