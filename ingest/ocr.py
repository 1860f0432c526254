"""Text from an image, read by the `tesseract` command: screenshots and photographed receipts.

OCR is optional equipment. When the command is missing, or fails on an image, the caller
gets None and the image is still ingested as a photo; the reason is logged once, not once
per image of a 10,000-photo library.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess

from .config import PhotoSection

log = logging.getLogger(__name__)

_reported: set[str] = set()  # problems already logged at warning level


def ocr_image(data: bytes, config: PhotoSection) -> str | None:
    """The text tesseract reads in `data` (image bytes), or None when it cannot."""
    command = shutil.which(config.ocr_command)
    if command is None:
        _report("missing", f"OCR is off: command {config.ocr_command!r} not found "
                           "(install tesseract-ocr)")
        return None
    # "stdin"/"stdout" are tesseract's names for the pipes: no temporary files.
    args = [command, "stdin", "stdout", "-l", config.ocr_languages,
            "--psm", str(config.ocr_page_segmentation)]
    env = {**os.environ, "OMP_THREAD_LIMIT": str(config.ocr_threads)}
    try:
        done = subprocess.run(args, input=data, capture_output=True, env=env, check=False,
                              timeout=config.ocr_timeout_seconds)
    except subprocess.TimeoutExpired:
        _report("timeout", f"OCR gave up on an image after {config.ocr_timeout_seconds}s")
        return None
    except OSError as err:
        _report("oserror", f"OCR command {command} could not run: {err}")
        return None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        _report(f"exit{done.returncode}",
                f"OCR command failed (exit {done.returncode}): {detail[-1] if detail else ''}")
        return None
    return done.stdout.decode("utf-8", "replace")


def _report(key: str, message: str) -> None:
    """Warn the first time a kind of problem happens; later repeats go to debug."""
    if key in _reported:
        log.debug(message)
        return
    _reported.add(key)
    log.warning(message)
