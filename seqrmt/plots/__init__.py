"""Figure code shared by the chapters (needs matplotlib).

One module per chapter concept; every function returns a matplotlib ``Figure`` and
takes the model parameters as keyword arguments with the book's defaults, so the
same function draws the static figure and the frames of a widget.
"""

from ._style import *  # noqa: F401,F403
from .model import *  # noqa: F401,F403
from .bulk import *  # noqa: F401,F403
from .spikes import *  # noqa: F401,F403
from .weights import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .validation import *  # noqa: F401,F403
from .learning import *  # noqa: F401,F403
from .toolkit import *  # noqa: F401,F403
from ._check import *  # noqa: F401,F403
