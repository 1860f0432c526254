"""The local web page: `brainquery serve`."""
from .app import create_app

__all__ = ["create_app"]
