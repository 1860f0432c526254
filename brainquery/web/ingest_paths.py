"""Which paths a web ingest may name, decided before anything is read or written.

A path is refused when it cannot be a path at all (a NUL byte, a lone surrogate from a
JSON "\\udc80", longer than PATH_MAX) — and without a token, when it does not lie under one
of the server's allowed roots (`serve --allow`, default the roots the CLI ingested), or
passes through a hidden folder the config does not name: any local process can reach the
port, and what it ingests it can read back. Messages never echo the path (it may be
megabytes).
"""
from __future__ import annotations

import os
from typing import Sequence

from ingest.imap_url import ALL_FOLDERS, FolderUrl, ImapUrlError, is_imap_url, parse_imap_url

from ..config import WebSection


# The status of a path outside the allowed roots (the others are 422: not a path at all).
OUTSIDE = 403


def path_max() -> int:
    """The system's PATH_MAX (bytes, with the terminating NUL)."""
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        return 4096  # Linux's value, where pathconf cannot say


def refusal(paths: Sequence[str], web: WebSection, allowed_roots: Sequence[str] | None,
            allowed_mail: Sequence[str] | None = None) -> tuple[int, str] | None:
    """(HTTP status, reason) for the first path refused, or None. `allowed_roots` None: a
    token holder, who may name any path. An IMAP folder URL is allowed without a token only
    when the CLI has synced it (`allowed_mail`: the folder URLs recorded in the store): the
    server would hand the named host a password from its environment or ~/.netrc."""
    if len(paths) > web.max_ingest_paths:
        return 422, f"at most {web.max_ingest_paths} paths per ingest"
    limit = path_max()
    for n, path in enumerate(paths, 1):
        if "\x00" in path:
            return 422, f"path {n} holds a NUL character"
        try:
            raw = path.encode("utf-8")
        except UnicodeEncodeError:
            return 422, f"path {n} is not valid text (a lone surrogate)"
        if len(raw) >= limit:
            return 422, f"path {n} is longer than PATH_MAX ({limit} bytes)"
        if is_imap_url(path):
            try:
                folder = parse_imap_url(path)
            except ImapUrlError as err:
                return 422, f"path {n} is not an IMAP folder URL we read: {err}"
            if allowed_roots is not None and not _mail_allowed(folder, allowed_mail or ()):
                return 403, (f"path {n} is an IMAP folder this server has not synced; sync it once "
                             "with `brainquery ingest` first")
            continue
        if allowed_roots is not None and not _allowed(path, allowed_roots, web.allowed_hidden):
            return OUTSIDE, (f"path {n} is outside the folders this server ingests without a token "
                         "(serve --allow PATH)")
    return None


def _mail_allowed(folder: FolderUrl, synced: Sequence[str]) -> bool:
    if folder.folder == ALL_FOLDERS:
        return any(url.startswith(folder.account.url + "/") for url in synced)
    return folder.url in synced


def _allowed(path: str, roots: Sequence[str], hidden_ok: Sequence[str]) -> bool:
    real = os.path.realpath(os.path.expanduser(path))
    for root in roots:
        root = root.rstrip(os.sep) or os.sep
        if real == root:
            return True
        if real.startswith(root if root == os.sep else root + os.sep):
            below = real[len(root):].strip(os.sep).split(os.sep)
            if all(not part.startswith(".") or part in hidden_ok for part in below):
                return True
    return False
