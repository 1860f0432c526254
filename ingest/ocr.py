"""Text from an image: screenshots and photographed receipts.

Two engines, tried in the order `photo.ocr_engines` names them (benchmarks/ocr_bench.py
measures both on the shared receipts and invoices):

- "rapidocr": RapidOCR on onnxruntime, a pip dependency whose detection, direction and
  recognition models ship inside its wheel. We pass it the paths of those bundled files, so
  its download code is never reached; a missing model file makes the engine unavailable.
  It runs in one long-lived worker process (ingest/ocr_worker.py), loaded once per run, so that an image that
  takes too long can be stopped (`ocr_timeout_seconds`): the worker is killed and the next
  image gets a fresh one.
- "tesseract": the `tesseract` command, when it is installed.

OCR is best effort. When no engine is available, or the engine fails on an image, the caller
gets None and the image is still ingested as a photo; the reason is logged once, not once
per image of a 10,000-photo library.
"""
from __future__ import annotations

import atexit
import importlib.util
import json
import logging
import os
import selectors
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from . import ocr_worker
from .config import PhotoSection

log = logging.getLogger(__name__)

_reported: set[str] = set()  # problems already logged at warning level

# The model files RapidOCR's wheel carries (rapidocr/models/): PP-OCRv6 small detection and
# recognition (Chinese + Latin script, digits, punctuation), and the text-direction classifier.
_RAPID_MODELS = {"Det": "PP-OCRv6_det_small.onnx", "Rec": "PP-OCRv6_rec_small.onnx",
                 "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx"}


def ocr_image(data: bytes, config: PhotoSection) -> str | None:
    """The text the first available engine of `config.ocr_engines` reads in `data` (image
    bytes), or None when no engine is available or the engine could not read it."""
    for name in config.ocr_engines:
        engine = ENGINES[name]
        if engine.available(config):
            return engine.read(data, config)
    _report("missing", "OCR is off: no OCR engine is available (tried "
                       f"{', '.join(config.ocr_engines)}; reinstall brainquery for rapidocr)")
    return None


def engine_name(config: PhotoSection) -> str | None:
    """The engine ocr_image would use, or None."""
    return next((n for n in config.ocr_engines if ENGINES[n].available(config)), None)


# --- tesseract -------------------------------------------------------------------------------

class Tesseract:
    name = "tesseract"

    @staticmethod
    def available(config: PhotoSection) -> bool:
        return shutil.which(config.ocr_command) is not None

    @staticmethod
    def read(data: bytes, config: PhotoSection) -> str | None:
        command = shutil.which(config.ocr_command)
        if command is None:
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


# --- RapidOCR --------------------------------------------------------------------------------

def rapid_model_paths() -> dict[str, Path] | None:
    """The bundled model files, or None when rapidocr (or onnxruntime, or a model file) is
    missing. Found without importing rapidocr, which takes a second."""
    if importlib.util.find_spec("onnxruntime") is None:
        return None
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "models"
    paths = {part: folder / name for part, name in _RAPID_MODELS.items()}
    return paths if all(p.is_file() for p in paths.values()) else None


def rapid_params(paths: dict[str, Path], threads: int, max_side: int) -> dict[str, Any]:
    """RapidOCR's settings: our model paths (so it never looks for, or fetches, others), its
    own logging quiet, a thread budget and the largest image side it works on."""
    params: dict[str, Any] = {f"{part}.model_path": str(path) for part, path in paths.items()}
    params.update({"Global.log_level": "error", "Global.max_side_len": max_side,
                   "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                   "EngineConfig.onnxruntime.inter_op_num_threads": 1})
    return params


class RapidOCREngine:
    name = "rapidocr"

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._key: str | None = None
        self._lock = threading.Lock()   # one image at a time through the one worker
        atexit.register(self.close)

    @staticmethod
    def available(config: PhotoSection) -> bool:
        return rapid_model_paths() is not None

    def read(self, data: bytes, config: PhotoSection) -> str | None:
        with self._lock:
            return self._read(data, config)

    def _read(self, data: bytes, config: PhotoSection) -> str | None:
        paths = rapid_model_paths()
        if paths is None:
            return None
        key = json.dumps(rapid_params(paths, config.ocr_threads, config.ocr_max_side))
        try:
            if self._process is None or self._process.poll() is not None or key != self._key:
                self._start(key)
            assert self._process is not None and self._process.stdin and self._process.stdout
            ocr_worker.write_frame(self._process.stdin, data)
            # The first image also waits for the models to load.
            # A selector, not select(): a long-lived process (serve, a big ingest) may hold
            # file descriptors past 1024, which select() cannot wait on.
            with selectors.DefaultSelector() as waiting:
                waiting.register(self._process.stdout, selectors.EVENT_READ)
                ready = waiting.select(config.ocr_timeout_seconds)
            if not ready:
                self.close()
                _report("timeout", f"OCR gave up on an image after {config.ocr_timeout_seconds}s")
                return None
            reply = ocr_worker.read_frame(self._process.stdout)
        except OSError as err:
            reply = None
            log.debug("OCR worker: %s", err)
        if not reply:
            self.close()
            _report("worker", "OCR worker stopped (is rapidocr installed whole?)")
            return None
        if reply[0] != ocr_worker.OK:
            _report("rapid-error", f"OCR could not read an image: {reply[1:].decode('utf-8', 'replace')}")
            return None
        return reply[1:].decode("utf-8", "replace")

    def _start(self, key: str) -> None:
        self.close()
        # A process of its own, not a thread: an image that takes too long can be stopped.
        # -P: the script's folder (ingest/, whose calendar.py would shadow the standard
        # library's) stays off the import path.
        self._process = subprocess.Popen(
            [sys.executable, "-P", ocr_worker.__file__, key], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._key = key

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe:
                    pipe.close()
        self._process = self._key = None


ENGINES: dict[str, Any] = {"rapidocr": RapidOCREngine(), "tesseract": Tesseract()}


def check_engines(names: tuple[str, ...]) -> None:
    """Unknown engine names are a configuration error that lists the valid ones."""
    unknown = [n for n in names if n not in ENGINES]
    if unknown or not names:
        raise ValueError(f"unknown OCR engine(s) {unknown or names!r}; valid: {sorted(ENGINES)}")


def _report(key: str, message: str) -> None:
    """Warn the first time a kind of problem happens; later repeats go to debug."""
    if key in _reported:
        log.debug(message)
        return
    _reported.add(key)
    log.warning(message)

