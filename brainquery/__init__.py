"""Brain Query: a local, private document assistant for a household."""
from .brain import Brain

__all__ = ["Brain"]
