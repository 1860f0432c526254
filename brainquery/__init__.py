"""Brain Query: a local, private document assistant for a household."""
from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["Brain", "__version__"]


def __getattr__(name: str):
    # `from brainquery import Brain` loads the library; `brainquery --help` does not.
    if name == "Brain":
        from .brain import Brain

        return Brain
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
