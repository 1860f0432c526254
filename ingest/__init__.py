"""Ingestion side of Brain Query: files, folders and mailboxes in, Document records out.

This package never imports `brainquery`; the query side and the store build on it.
"""
from .document import Document, IngestError, ItemFailure

__all__ = ["Document", "IngestError", "ItemFailure"]
