"""Photo ingestion: EXIF dates in order of preference, camera facts, and OCR of screenshots."""
from __future__ import annotations

import dataclasses
import io
import logging
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import REALDATA, realdata_rows, requires_realdata
from PIL import Image, ImageDraw, ImageFont
from PIL.TiffImagePlugin import IFDRational
from test_calendar import CONTENT_FREE_SOURCES, same_day, same_minute

import ingest.ocr as ocr
from ingest.config import load_ingest_config
from ingest.blob import Blob, Parent
from ingest.document import Document
from ingest.photo import PhotoIngestor, name_words
from ingest.sniff import magic

UTC = timezone.utc
EXIF_IFD, GPS_IFD = 0x8769, 0x8825
MAKE, MODEL, DATETIME, XP_COMMENT = 271, 272, 306, 0x9C9C
ORIGINAL, DIGITIZED, OFFSET, OFFSET_ORIGINAL, OFFSET_DIGITIZED = 36867, 36868, 36880, 36881, 36882
USER_COMMENT, EXPOSURE_TIME = 37510, 33434
GPS_LAT_REF, GPS_LAT, GPS_LON_REF, GPS_LON = 1, 2, 3, 4
# The command the configuration names (BRAINQUERY_CONFIG may point it elsewhere).
needs_tesseract = pytest.mark.skipif(shutil.which(load_ingest_config().photo.ocr_command) is None,
                                     reason="tesseract is not installed")
# RapidOCR is a core dependency: its tests never skip. Tesseract's run when it is installed.
ENGINES = [pytest.param("rapidocr", id="rapidocr"),
           pytest.param("tesseract", id="tesseract", marks=needs_tesseract)]


def jpeg(ifd0=None, exif=None, gps=None, size=(16, 12), fmt="JPEG") -> bytes:
    """A small real image carrying the given EXIF tags (Pillow writes them)."""
    block = Image.Exif()
    for tag, value in (ifd0 or {}).items():
        block[tag] = value
    for ifd, tags in ((EXIF_IFD, exif), (GPS_IFD, gps)):
        if tags:
            block.get_ifd(ifd).update(tags)
    buffer = io.BytesIO()
    Image.new("RGB", size, "white").save(buffer, fmt, exif=block)
    return buffer.getvalue()


def ingest_bytes(tmp_path: Path, ctx, data: bytes, name: str = "IMG_0001.jpg") -> Document:
    path = tmp_path / name
    path.write_bytes(data)
    [doc] = PhotoIngestor().ingest(Blob.from_path(path), ctx)
    return doc


CAMERA = {MAKE: "Canon", MODEL: "Canon PowerShot S40"}

# (image bytes, expected date (aware, or naive = floating wall clock) or None, date_source)
DATE_CASES = [
    pytest.param(jpeg(CAMERA, {ORIGINAL: "2024:07:25 16:34:23", OFFSET_ORIGINAL: "+02:00"}),
                 datetime(2024, 7, 25, 14, 34, 23, tzinfo=UTC), "exif_datetime_original",
                 id="original-with-offset"),
    pytest.param(jpeg(CAMERA, {ORIGINAL: "2024:07:25 16:34:23"}),
                 datetime(2024, 7, 25, 16, 34, 23), "exif_datetime_original",
                 id="original-floating"),
    pytest.param(jpeg({**CAMERA, DATETIME: "2025:01:01 10:00:00"},
                      {ORIGINAL: "2008:10:22 16:29:49", DIGITIZED: "2008:10:23 09:00:00"}),
                 datetime(2008, 10, 22, 16, 29, 49), "exif_datetime_original",
                 id="original-beats-digitized-and-edit-time"),
    pytest.param(jpeg(CAMERA, {DIGITIZED: "2019:10:20 18:34:30", OFFSET_DIGITIZED: "-04:00"}),
                 datetime(2019, 10, 20, 22, 34, 30, tzinfo=UTC), "exif_datetime_digitized",
                 id="digitized-with-offset"),
    pytest.param(jpeg({DATETIME: "2012:08:18 15:32:58"}, {OFFSET: "+09:00"}),
                 datetime(2012, 8, 18, 6, 32, 58, tzinfo=UTC), "exif_datetime",
                 id="ifd0-datetime-with-offset"),
    pytest.param(jpeg({**CAMERA, DATETIME: "2012:08:18 15:32:58"},
                      {ORIGINAL: "0000:00:00 00:00:00"}),
                 datetime(2012, 8, 18, 15, 32, 58), "exif_datetime",
                 id="unset-original-skipped"),
    pytest.param(jpeg(CAMERA, {ORIGINAL: "1850:01:01 00:00:00"}), None, "file_mtime",
                 id="implausibly-old"),
    pytest.param(jpeg(CAMERA, {ORIGINAL: "2099:01:01 00:00:00"}), None, "file_mtime",
                 id="implausibly-far-future"),
    pytest.param(jpeg(CAMERA), None, "file_mtime", id="no-date-tags"),
    pytest.param(jpeg(), None, "file_mtime", id="no-exif"),
    pytest.param(b"\xff\xd8\xff\xe1\x00\x40Exif\x00\x00MM\x00\x2a\x00\x00\xff\xff" + b"\x01" * 60,
                 None, "file_mtime", id="corrupt-exif"),
    pytest.param(jpeg(CAMERA, {ORIGINAL: "2003:12:14 12:01:44"}, fmt="PNG"),
                 datetime(2003, 12, 14, 12, 1, 44), "exif_datetime_original", id="png-exif"),
    # Pillow writes no EXIF sub-IFD into a TIFF, so IFD0 DateTime stands in here; the
    # realdata TIFF carries DateTimeOriginal.
    pytest.param(jpeg({**CAMERA, DATETIME: "2017:11:07 18:56:07"}, fmt="TIFF"),
                 datetime(2017, 11, 7, 18, 56, 7), "exif_datetime", id="tiff"),
    pytest.param(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 40,
                 None, "file_mtime", id="unreadable-heic"),
]


@pytest.mark.parametrize("data, expected, date_source", DATE_CASES)
def test_photo_date(tmp_path, ctx, data, expected, date_source):
    doc = ingest_bytes(tmp_path, ctx, data)
    assert doc.doc_type == "photo"
    assert doc.date_source == date_source
    if expected is None:
        assert doc.source_date == Blob.from_path(tmp_path / "IMG_0001.jpg").mtime
    elif expected.tzinfo is None:
        assert doc.date_floating
        assert doc.source_date.replace(tzinfo=None) == expected
        assert doc.source_date.tzinfo is not None
    else:
        assert not doc.date_floating and doc.source_date == expected


def test_attachment_without_exif_takes_its_message_date(ctx):
    sent = datetime(2022, 4, 3, 9, 0, tzinfo=UTC)
    parent = Parent(doc_id="m7", source="mail/cur/123", file_path="mail/cur/123",
                    message_id="<p@x>", source_date=sent, date_source="header_date",
                    date_floating=False)
    blob = Blob(name="photo.jpg", data=jpeg(CAMERA), parent=parent)
    [doc] = PhotoIngestor().ingest(blob, ctx)
    assert (doc.source_date, doc.date_source, doc.parent_id, doc.attachment, doc.message_id) == (
        sent, "parent_message", "m7", "photo.jpg", "<p@x>")


def test_camera_meta_and_text(tmp_path, ctx):
    data = jpeg({**CAMERA, XP_COMMENT: "kitchen leak".encode("utf-16-le") + b"\x00\x00",
                 270: "Water stain under the sink"},
                {ORIGINAL: "2024:03:05 10:00:00", USER_COMMENT: b"ASCII\x00\x00\x00plumber visit"},
                {GPS_LAT_REF: "S", GPS_LAT: (33.0, 52.0, 30.0),
                 GPS_LON_REF: "W", GPS_LON: (151.0, 12.0, 36.0)})
    doc = ingest_bytes(tmp_path, ctx, data, name="IMG_2024_roof-damage.jpg")
    assert dict(doc.meta) == {
        "camera_make": "Canon", "camera_model": "Canon PowerShot S40",
        "gps_lat": -33.875, "gps_lon": -151.21,
        "image_description": "Water stain under the sink", "xp_comment": "kitchen leak",
        "user_comment": "plumber visit", "width": 16, "height": 12,
    }
    for words in ("roof damage", "kitchen leak", "plumber visit", "Water stain", "Canon",
                  "Tuesday 05 March 2024"):
        assert words in doc.text
    assert doc.title == "IMG_2024_roof-damage.jpg"


@pytest.mark.parametrize("gps, expected", [
    pytest.param({GPS_LAT_REF: "N", GPS_LAT: (50.0, 17.0, 58.57), GPS_LON_REF: "E",
                  GPS_LON: (14.0, 49.0, 13.06)}, (50.299603, 14.820294), id="north-east"),
    pytest.param({GPS_LAT_REF: "N", GPS_LAT: (IFDRational(0, 0),) * 3, GPS_LON_REF: "E",
                  GPS_LON: (IFDRational(0, 0),) * 3}, None, id="zero-denominators"),
    pytest.param({GPS_LAT_REF: "N", GPS_LAT: (95.0, 0.0, 0.0), GPS_LON_REF: "E",
                  GPS_LON: (10.0, 0.0, 0.0)}, None, id="off-the-globe"),
])
def test_gps(tmp_path, ctx, gps, expected):
    doc = ingest_bytes(tmp_path, ctx, jpeg(CAMERA, {ORIGINAL: "2020:01:01 00:00:00"}, gps))
    got = (doc.meta.get("gps_lat"), doc.meta.get("gps_lon"))
    assert got == (expected or (None, None))


@pytest.mark.parametrize("relative, levels, expected", [
    pytest.param("IMG_2024_roof-damage.jpg", 0, "IMG 2024 roof damage", id="underscores-dashes"),
    pytest.param("Garden/Spring 2023/DSC0042.JPG", 2, "DSC 0042 Spring 2023 Garden",
                 id="folders"),
    pytest.param("a/b/c/PXL_20230101_kitchenSink.jpg", 2, "PXL 20230101 kitchen Sink c b",
                 id="camel-case-two-folders"),
])
def test_name_words(tmp_path, relative, levels, expected):
    assert name_words(Blob.from_path(tmp_path / relative), folder_levels=levels) == expected


def test_attachment_name_words_have_no_folders():
    assert name_words(Blob(name="Roof_leak.jpg", data=b"", parent=Parent(
        "m", "s", "f", "", None, "")), folder_levels=2) == "Roof leak"


@pytest.mark.parametrize("name, data, expected", [
    pytest.param("a.jpg", jpeg(), 1.0, id="jpeg"),
    pytest.param("a.mpo", jpeg(), 1.0, id="mpo-is-jpeg"),
    pytest.param("a.png", jpeg(fmt="PNG"), 1.0, id="png"),
    pytest.param("a.gif", jpeg(fmt="GIF"), 1.0, id="gif"),
    pytest.param("a.webp", jpeg(fmt="WEBP"), 1.0, id="webp"),
    pytest.param("a.heic", b"\x00\x00\x00\x18ftypheic" + b"\x00" * 16, 1.0, id="heic"),
    pytest.param("a.avif", b"\x00\x00\x00\x18ftypavif" + b"\x00" * 16, 1.0, id="avif"),
    pytest.param("a.jpg", b"", None, id="empty"),
    pytest.param("a.jpg", b"%PDF-1.4", None, id="pdf-named-jpg"),
])
def test_claim(name, data, expected):
    blob = Blob(name=name, data=data)
    assert PhotoIngestor().claim(blob, magic(blob)) == expected


# --- OCR -------------------------------------------------------------------------------

def rendered(lines: list[str], fmt: str = "PNG") -> bytes:
    """A screenshot-like image of `lines`, large enough for tesseract to read."""
    font = ImageFont.load_default(size=36)
    image = Image.new("RGB", (1100, 60 + 52 * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((40, 30 + 52 * row), line, fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, fmt)
    return buffer.getvalue()


INVOICE_LINES = ["ACME Plumbing Ltd", "INVOICE", "Invoice Number: 1042",
                 "Invoice Date: 5 March 2024", "Bill To: Jane Doe",
                 "Boiler repair 1 120.00", "Subtotal 120.00", "VAT 24.00", "Total due $144.00"]
RECEIPT_LINES = ["CORNER GROCERY", "SALES RECEIPT", "Milk 1.99", "Bread 2.49",
                 "TOTAL 4.48", "VISA **** 1234", "12/01/2024 14:05", "Thank you"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("data, doc_type, expected, has_time", [
    pytest.param(rendered(INVOICE_LINES), "invoice", datetime(2024, 3, 5), False,
                 id="invoice-png"),
    pytest.param(rendered(RECEIPT_LINES, "JPEG"), "receipt", datetime(2024, 12, 1, 14, 5), True,
                 id="receipt-jpeg"),
])
def test_screenshot_of_invoice_or_receipt(tmp_path, ctx, engine, data, doc_type, expected, has_time):
    doc = ingest_bytes(tmp_path, with_photo(ctx, ocr_engines=(engine,)), data,
                       name="Screenshot 2025-01-01.png")
    assert doc.doc_type == doc_type
    assert doc.date_floating and doc.source_date.replace(tzinfo=None) == expected
    assert doc.date_source not in CONTENT_FREE_SOURCES
    assert doc.meta["ocr"] is True and doc.meta["invoice_total"] > 0
    assert ("Total" in doc.text or "TOTAL" in doc.text) and "Screenshot" in doc.text


@pytest.mark.parametrize("engine", ENGINES)
def test_screenshot_that_is_no_invoice_stays_a_photo_with_its_text(tmp_path, ctx, engine):
    doc = ingest_bytes(tmp_path, with_photo(ctx, ocr_engines=(engine,)),
                       rendered(["Meeting notes", "Call the roofer on Monday"]))
    assert doc.doc_type == "photo" and doc.meta["ocr"] is True
    assert "roofer" in doc.text and doc.date_source == "file_mtime"


def with_photo(ctx, **changes):
    photo = dataclasses.replace(ctx.config.photo, **changes)
    return dataclasses.replace(ctx, config=dataclasses.replace(ctx.config, photo=photo))


def test_camera_photos_are_never_ocrd(tmp_path, ctx, monkeypatch):
    def refuse(*_):
        raise AssertionError("a camera photo was sent to OCR")

    monkeypatch.setattr(ocr, "ocr_image", refuse)
    for ifd0, exif in ((CAMERA, {}), ({}, {EXPOSURE_TIME: IFDRational(1, 250)})):
        doc = ingest_bytes(tmp_path, ctx, jpeg(ifd0, {**exif, ORIGINAL: "2020:01:01 00:00:00"}))
        assert doc.doc_type == "photo" and "ocr" not in doc.meta


def test_ocr_switched_off(tmp_path, ctx, monkeypatch):
    monkeypatch.setattr(ocr, "ocr_image", lambda *_: pytest.fail("OCR ran while switched off"))
    doc = ingest_bytes(tmp_path, with_photo(ctx, ocr_screenshots=False), rendered(INVOICE_LINES))
    assert doc.doc_type == "photo"


@pytest.mark.parametrize("changes, message", [
    pytest.param({"ocr_command": "no-such-ocr-tool", "ocr_engines": ("tesseract",)},
                 "no OCR engine is available", id="missing-command"),
    pytest.param({"ocr_languages": "xx-no-such-language", "ocr_engines": ("tesseract",)},
                 "OCR command failed", id="tool-fails", marks=needs_tesseract),
])
def test_ocr_trouble_is_logged_once_and_the_image_is_still_a_photo(
        tmp_path, ctx, monkeypatch, caplog, changes, message):
    monkeypatch.setattr(ocr, "_reported", set())
    broken = with_photo(ctx, **changes)
    with caplog.at_level(logging.WARNING, logger="ingest.ocr"):
        for name in ("one.png", "two.png"):
            doc = ingest_bytes(tmp_path, broken, rendered(INVOICE_LINES), name=name)
            assert doc.doc_type == "photo" and doc.date_source == "file_mtime"
    assert [r.getMessage() for r in caplog.records if message in r.getMessage()].__len__() == 1


def test_ocr_timeout_returns_none(monkeypatch, ingest_config):
    import subprocess

    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], kwargs["timeout"])

    monkeypatch.setattr(ocr, "_reported", set())
    monkeypatch.setattr(ocr.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(ocr.subprocess, "run", slow)
    tesseract = dataclasses.replace(ingest_config.photo, ocr_engines=("tesseract",))
    assert ocr.ocr_image(b"image", tesseract) is None


def test_rapidocr_comes_with_the_install_and_never_downloads(monkeypatch):
    """The models are files inside the rapidocr wheel; the engine is handed their paths,
    so the worker process has nothing to fetch even where the network is closed."""
    paths = ocr.rapid_model_paths()
    assert paths is not None, "rapidocr or its bundled models are missing"
    params = ocr.rapid_params(paths, threads=1, max_side=2000)
    assert {params[f"{part}.model_path"] for part in ("Det", "Rec", "Cls")} \
        == {str(p) for p in paths.values()}
    text = ocr_offline(rendered(["Total due 144.00"]))
    assert "144.00" in text


def ocr_offline(data: bytes) -> str:
    """RapidOCR in a fresh interpreter whose sockets refuse to connect."""
    import subprocess
    import sys

    script = (
        "import socket, sys\n"
        "def refuse(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = refuse; socket.create_connection = refuse\n"
        "from ingest import ocr\n"
        "from rapidocr import RapidOCR\n"
        "from ingest.ocr_worker import rapid_lines\n"
        "engine = RapidOCR(params=ocr.rapid_params(ocr.rapid_model_paths(), 1, 2000))\n"
        "sys.stdout.write(rapid_lines(engine, sys.stdin.buffer.read()))\n")
    done = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True,
                          check=True, cwd=Path(__file__).resolve().parent.parent, timeout=120)
    return done.stdout.decode()


def test_rapidocr_gives_up_on_a_slow_image_and_recovers(monkeypatch, caplog, ingest_config):
    """A bounded time per image: the worker is stopped, the image is not OCR'd, and the
    next image gets a fresh worker."""
    monkeypatch.setattr(ocr, "_reported", set())
    fast = dataclasses.replace(ingest_config.photo, ocr_engines=("rapidocr",))
    assert "144.00" in ocr.ocr_image(rendered(["Total due 144.00"]), fast)
    hurried = dataclasses.replace(fast, ocr_timeout_seconds=1)
    started = ocr.ENGINES["rapidocr"]._process
    assert ocr.ocr_image(rendered(["Total due 144.00"] * 150), hurried) is None
    assert started.poll() is not None, "the worker still runs"
    assert any("gave up on an image after 1s" in r.getMessage() for r in caplog.records)
    assert "144.00" in ocr.ocr_image(rendered(["Total due 144.00"]), fast)


def test_rapidocr_reads_in_a_process_holding_many_files(monkeypatch, ingest_config):
    """A long-lived process (serve, a big ingest) may hold descriptors past 1024, where
    select() cannot wait: the worker's reply must still be read."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        pytest.skip(f"this process may open only {soft} files")
    monkeypatch.setattr(ocr, "_reported", set())
    ocr.ENGINES["rapidocr"].close()      # the next worker's pipes come after the padding
    padding = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        fast = dataclasses.replace(ingest_config.photo, ocr_engines=("rapidocr",))
        assert "144.00" in (ocr.ocr_image(rendered(["Total due 144.00"]), fast) or "")
    finally:
        ocr.ENGINES["rapidocr"].close()
        for fd in padding:
            os.close(fd)


def test_unknown_ocr_engine_is_a_config_error(ingest_config):
    from ingest.config import ConfigError

    with pytest.raises(ConfigError, match="valid: \\['rapidocr', 'tesseract'\\]"):
        dataclasses.replace(ingest_config.photo, ocr_engines=("easyocr",))


# --- realdata -------------------------------------------------------------------------

# Misses no general method in this module can fix; each reason says where the fix lies.
KNOWN_MISSES: dict[str, str] = {}


def photo_rows() -> list:
    """Every photo of the manifest; every receipt or invoice image once per OCR engine."""
    rows = []
    for row in realdata_rows():
        path = REALDATA / row["path"]
        if row["kind"] not in ("photo", "invoice", "receipt") or not path.exists():
            continue
        blob = Blob.from_path(path)
        if row["kind"] != "photo" and PhotoIngestor().claim(blob, magic(blob)) is None:
            continue                     # PDF invoices belong to the PDF ingestor
        marks = []
        if blob.size == 0:
            marks.append(pytest.mark.skip(reason="empty file: the pipeline reports it"))
        if row["path"] in KNOWN_MISSES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[row["path"]]))
        if row["expected_doc_type"] == "photo":
            rows.append(pytest.param(row, None, id=Path(row["path"]).name, marks=marks))
            continue
        for engine in ENGINES:
            rows.append(pytest.param(row, engine.values[0], marks=[*marks, *engine.marks],
                                     id=f"{Path(row['path']).name}-{engine.values[0]}"))
    return rows


@requires_realdata
@pytest.mark.realdata
@pytest.mark.parametrize("row, engine", photo_rows())
def test_realdata_photos(ctx, row, engine):
    blob = Blob.from_path(REALDATA / row["path"])
    assert PhotoIngestor().claim(blob, magic(blob)) is not None
    if engine is not None:
        ctx = with_photo(ctx, ocr_engines=(engine,))
    [doc] = PhotoIngestor().ingest(blob, ctx)
    expected = row["expected_source_date"]
    if expected:
        assert same_day(doc.source_date, expected), doc.source_date
        if "T" in expected:
            assert same_minute(doc.source_date, expected), doc.source_date
    else:
        assert doc.date_source in CONTENT_FREE_SOURCES
    assert doc.doc_type == row["expected_doc_type"]
