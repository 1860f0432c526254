"""Incremental sync of IMAP folders into the store.

Per account and folder the store keeps, beside the file records, the folder's UIDVALIDITY
and the highest UID ingested. A run fetches only UIDs above it; a changed UIDVALIDITY
(the server renumbered the folder) re-lists the folder, and Message-IDs keep every message
one document. The record is written only after the chunks of every message up to its UID
are in the store, so a dropped connection or a killed run is finished by the next one,
without duplicates or gaps. Messages deleted on the server stay: the store is the
household's archive; the summary counts them.
"""
from __future__ import annotations

import contextlib
import re
import sys
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Sequence

from ingest.config import ImapSection
from ingest.document import ItemFailure
from ingest.imap import ImapConnectionLost, ImapError, ImapSession, batches, message_items
from ingest.imap_auth import Secrets
from ingest.imap_url import ALL_FOLDERS, FolderUrl

from .indexer import FAILED, ReportLine


RECORD_KIND = "imap_folder"
_UID_IN_SOURCE = re.compile(r";UID=(\d+)$")


@contextlib.contextmanager
def connected(folders: Sequence[FolderUrl], secrets: Secrets, cfg: ImapSection
              ) -> Iterator[list["AccountSync"]]:
    """One logged-in session per account named, all opened before anything is read (a
    wrong password stops the run before it writes), all closed after."""
    by_account: dict[Any, list[FolderUrl]] = {}
    for folder in folders:
        by_account.setdefault(folder.account, []).append(folder)
    sessions: list[ImapSession] = []
    try:
        for account in by_account:
            sessions.append(ImapSession(account, secrets, cfg))
        yield [AccountSync(session, by_account[session.account], cfg) for session in sessions]
    finally:
        for session in sessions:
            session.close()


class AccountSync:
    """The folders named for one account, read over one logged-in session."""

    def __init__(self, session: ImapSession, folders: Sequence[FolderUrl], cfg: ImapSection):
        self.session = session
        self.folders = list(folders)
        self.cfg = cfg

    def run(self, indexer, emit, summary, progress: bool | None,
            on_input: Callable[[int, int, str], None] | None) -> None:
        try:
            folders = self._expanded()
        except ImapError as err:
            summary.inputs += len(self.folders)
            for folder in self.folders:
                emit(ReportLine(source=folder.url, status=FAILED, error=str(err)))
            return
        lost = ""
        for folder in folders:
            summary.inputs += 1
            if lost:
                emit(ReportLine(source=folder.url, status=FAILED,
                                error=f"not read: {lost}; the next run reads it"))
                continue
            try:
                summary.mail_folders.append(
                    _sync_folder(self.session, folder, indexer, emit, self.cfg, progress, on_input))
            except ImapConnectionLost as err:
                lost = str(err)
                emit(ReportLine(source=folder.url, status=FAILED,
                                error=f"{err}; the next run continues where this one stopped"))
            except ImapError as err:
                emit(ReportLine(source=folder.url, status=FAILED, error=str(err)))

    def _expanded(self) -> list[FolderUrl]:
        """The folders named, `*` replaced by every selectable one (Trash and Junk only
        when named), each once."""
        out: list[FolderUrl] = []
        for folder in self.folders:
            if folder.folder == ALL_FOLDERS:
                out += [folder.named(name) for name in self.session.folders(self.cfg.skip_folders)]
            else:
                out.append(folder)
        return list(dict.fromkeys(out))


def _sync_folder(session: ImapSession, folder: FolderUrl, indexer, emit, cfg: ImapSection,
                 progress: bool | None, on_input) -> dict[str, Any]:
    url = folder.url
    status = session.examine(folder.folder)
    record = indexer.store.source(url) or {}
    relisted = bool(record) and record.get("uidvalidity") != status.uidvalidity
    same_epoch = bool(record) and not relisted
    last_uid = int(record.get("last_uid", 0)) if same_epoch else 0
    # Messages that failed are read again each run, as a broken file is.
    failed = _uids(record.get("failed_uids", "")) if same_epoch else set()
    nothing_new = status.uidnext is not None and status.uidnext <= last_uid + 1
    sizes = sorted(set(([] if nothing_new else session.sizes_after(last_uid))
                       + (session.sizes_of(sorted(failed)) if failed else [])))
    failed &= {uid for uid, _ in sizes}  # a failed message deleted on the server is gone
    new = sum(1 for uid, _ in sizes if uid > last_uid)
    limit = indexer.ctx.config.ingest.max_message_bytes
    seen: set[str] = set()
    done = 0
    bar = _bar(folder, len(sizes), progress)
    try:
        for batch in batches(sizes, cfg):
            if on_input is not None:
                on_input(done, len(sizes), url)
            for uid, size in batch:
                failed.discard(uid)
                if size > limit:  # refused unread: a 300 MB message never sits in memory
                    failed.add(uid)
                    indexer.apply_item(url, ItemFailure(
                        source=folder.message_source(uid),
                        error=f"message UID {uid}: message is {size} bytes, over the {limit}-byte limit"),
                        seen, emit)
            for message in session.fetch([uid for uid, size in batch if size <= limit]):
                for item in message_items(message, folder, status.uidvalidity, indexer.ctx):
                    if isinstance(item, ItemFailure) and not item.attachment:
                        failed.add(message.uid)
                    indexer.apply_item(url, item, seen, emit)
            done += len(batch)
            if bar is not None:
                bar.update(len(batch))
            last_uid = max(last_uid, batch[-1][0])
            indexer.record_source(_record(url, status.uidvalidity, last_uid, failed, cfg))
    finally:
        if bar is not None:
            bar.close()
    if not record or relisted:  # the folder's epoch is recorded even when it is empty
        indexer.record_source(_record(url, status.uidvalidity, last_uid, failed, cfg))
    gone = _gone(indexer.stored_from(url), status.uidvalidity, session.all_uids())
    return {"folder": url, "uidvalidity": status.uidvalidity, "relisted": relisted,
            "new": new, "last_uid": last_uid, "gone": gone}


def _record(url: str, uidvalidity: int, last_uid: int, failed: set[int],
            cfg: ImapSection) -> dict[str, Any]:
    # The newest failures are kept when there are too many to remember.
    kept = sorted(failed)[-cfg.max_failed_uids:] if cfg.max_failed_uids else []
    return {"path": url, "status": "ok", "kind": RECORD_KIND, "uidvalidity": uidvalidity,
            "last_uid": last_uid, "failed_uids": ",".join(map(str, kept)),
            "synced": datetime.now(timezone.utc).isoformat()}


def _uids(text: str) -> set[int]:
    return {int(t) for t in str(text).split(",") if t.strip().isdigit()}


def _gone(stored: Sequence[dict[str, Any]], uidvalidity: int, on_server: set[int]) -> int:
    """Messages stored from this folder that the server no longer has under their UID (or
    whose UID belongs to an epoch before the current UIDVALIDITY)."""
    gone = 0
    for meta in stored:
        if meta.get("attachment"):
            continue
        found = _UID_IN_SOURCE.search(str(meta.get("source", "")))
        if found is None:
            continue
        if meta.get("imap_uidvalidity") != uidvalidity or int(found[1]) not in on_server:
            gone += 1
    return gone


def _bar(folder: FolderUrl, total: int, enabled: bool | None):
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled or not total:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="msg", desc=folder.folder, file=sys.stderr)
