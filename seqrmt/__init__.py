"""seqrmt: random-matrix theory of pooled sequence embeddings.

The package behind the book "How does attention help?", which follows
M. E. A. Seddik, *How Does Attention Help? Insights from Random Matrices on Signal
Recovery from Sequence Models* (arXiv:2605.06826).
"""
from .model import *  # noqa: F401,F403
from .spectrum import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .spikes import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .learning import *  # noqa: F401,F403
from .toolkit import *  # noqa: F401,F403

__version__ = "0.1.0"
