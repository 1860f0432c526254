"""Photos and screenshots: the date a camera wrote in EXIF, what it says about itself, and
for images no camera made (screenshots, scans) the text OCR reads in them — a receipt
screenshot becomes a receipt, dated by what it prints.
"""
from __future__ import annotations

import dataclasses
import io
import logging
import re
import warnings
from datetime import datetime
from fractions import Fraction
from typing import Any, Iterator

import exifread

from . import ocr
from .blob import Blob
from .dates import make_aware, parse_exif_date
from .provenance import blob_id, make_document
from .registry import Context, Item
from .sniff import magic

log = logging.getLogger(__name__)

# MPO (stereo/multi-picture) files are JPEGs to the sniffer.
_KINDS = frozenset({"jpeg", "png", "tiff", "heic", "avif", "gif", "webp"})
_CLAIM = 1.0  # the content is unambiguously an image; nothing else reads these

# (date tag, offset tag, date_source) in order of preference: when the picture was taken,
# when it was digitised, and last the IFD0 DateTime, which editors overwrite.
_DATE_TAGS = (
    ("EXIF DateTimeOriginal", "EXIF OffsetTimeOriginal", "exif_datetime_original"),
    ("EXIF DateTimeDigitized", "EXIF OffsetTimeDigitized", "exif_datetime_digitized"),
    ("Image DateTime", "EXIF OffsetTime", "exif_datetime"),
)
_TEXT_TAGS = {"image_description": "Image ImageDescription", "artist": "Image Artist"}
# Windows Explorer's tags: UTF-16LE text stored as a list of byte values.
_XP_TAGS = {"xp_title": "Image XPTitle", "xp_subject": "Image XPSubject",
            "xp_comment": "Image XPComment", "xp_keywords": "Image XPKeywords"}
# Exposure settings only a camera records: a photo whose Make/Model were stripped is still
# a photo, not a screenshot to OCR.
_CAMERA_TAGS = ("Image Make", "Image Model", "EXIF ExposureTime", "EXIF FNumber",
                "EXIF ISOSpeedRatings", "EXIF FocalLength", "EXIF LensModel")
_EXIF_IFD, _USER_COMMENT_TAG = 0x8769, 37510  # exifread drops UserComment with details=False
_USER_COMMENT_CODE_BYTES = 8  # EXIF 2.3 §4.6.5: an 8-byte character-code prefix
_SIZE_TAGS = (("EXIF ExifImageWidth", "EXIF ExifImageLength"),
              ("Image ImageWidth", "Image ImageLength"))
_MINUTES, _SECONDS = 60, 3600
_MAX_LAT, _MAX_LON = 90, 180

_WORD_SPLIT = re.compile(r"[^0-9A-Za-zÀ-ÖØ-öø-ÿ]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_DATE_WORDS = "%A %d %B %Y"


@dataclasses.dataclass(frozen=True)
class ExifFacts:
    """What the EXIF block says, already validated."""

    date: datetime | None
    date_source: str
    date_floating: bool
    has_camera: bool
    meta: dict[str, Any]


class PhotoIngestor:
    name = "photo"

    def claim(self, blob: Blob, kind: str) -> float | None:
        return _CLAIM if kind in _KINDS else None

    def ingest(self, blob: Blob, ctx: Context) -> Iterator[Item]:
        data = blob.read()
        tags = read_exif(data)
        facts = read_facts(tags, ctx)
        meta = dict(facts.meta)
        meta.update(pillow_extras(data, tags))
        words = name_words(blob, ctx.config.photo.folder_levels)
        ocr_text = self._ocr(blob, data, facts, ctx)
        if ocr_text:
            meta["ocr"] = True
        invoice = _invoice_from(ocr_text, blob, ctx) if ocr_text else None
        if invoice is not None:
            meta.update(invoice.meta())
            date, source, floating = _invoice_date(invoice, facts, ctx)
            yield make_document(
                blob, ctx, doc_id=blob_id(blob), text=f"{ocr_text.strip()}\n{words}",
                title=invoice.title(ctx.config.invoice) or blob.name, doc_type=invoice.kind, source_date=date,
                date_source=source, date_floating=floating, meta=meta)
            return
        yield make_document(
            blob, ctx, doc_id=blob_id(blob), text=photo_text(words, facts.date, meta, ocr_text),
            title=blob.name, doc_type="photo", source_date=facts.date,
            date_source=facts.date_source, date_floating=facts.date_floating, meta=meta)

    @staticmethod
    def _ocr(blob: Blob, data: bytes, facts: ExifFacts, ctx: Context) -> str | None:
        """OCR only what no camera made: reading every camera photo would be slow and find
        nothing; a screenshot or scan carries no Make/Model or exposure settings."""
        config = ctx.config.photo
        if facts.has_camera or not config.ocr_screenshots or magic(blob) not in config.ocr_kinds:
            return None
        text = ocr.ocr_image(data, config)
        return text if text and text.strip() else None


def read_exif(data: bytes) -> dict[str, Any]:
    """exifread's tags, or {} when the EXIF block is absent or too broken to read: a photo
    with corrupt EXIF is still a photo."""
    try:
        return exifread.process_file(io.BytesIO(data), details=False, extract_thumbnail=False)
    except Exception as err:  # exifread raises anything on hostile input (offsets, loops)
        log.debug("unreadable EXIF: %s", err)
        return {}


def read_facts(tags: dict[str, Any], ctx: Context) -> ExifFacts:
    date, source, floating = exif_date(tags, ctx)
    make, model = _ascii(tags, "Image Make"), _ascii(tags, "Image Model")
    meta: dict[str, Any] = {"camera_make": make, "camera_model": model}
    lat, lon = gps(tags, ctx.config.photo.gps_decimals)
    if lat is not None and lon is not None:
        meta["gps_lat"], meta["gps_lon"] = lat, lon
    for key, tag in _TEXT_TAGS.items():
        meta[key] = _ascii(tags, tag)
    for key, tag in _XP_TAGS.items():
        meta[key] = _xp_text(tags.get(tag))
    has_camera = any(_ascii(tags, tag) for tag in _CAMERA_TAGS)
    return ExifFacts(date, source, floating, has_camera, meta)


def exif_date(tags: dict[str, Any], ctx: Context) -> tuple[datetime | None, str, bool]:
    """(aware date, date_source, floating) from the first plausible EXIF date, else
    (None, "", False) so the provenance fallback applies. Cameras write "0000:00:00"
    for an unset clock and 1970 or 2000 after a battery change; the range check drops
    the first, nothing can tell the second from a real date."""
    for date_tag, offset_tag, source in _DATE_TAGS:
        raw, floating = parse_exif_date(_ascii(tags, date_tag), _ascii(tags, offset_tag))
        if raw is None:
            continue
        value, floating = _aware(raw, floating, ctx)
        if ctx.plausible(value):
            return value, source, floating
    return None, "", False


def _aware(value: datetime, floating: bool, ctx: Context) -> tuple[datetime, bool]:
    aware, was_floating = make_aware(value, ctx.floating_zone)
    return aware, floating or was_floating


def gps(tags: dict[str, Any], decimals: int) -> tuple[float | None, float | None]:
    """Signed decimal degrees, or None for a missing or nonsensical coordinate (0/0
    rationals, minutes past 60 are tolerated, values off the globe are not)."""
    lat = _degrees(tags.get("GPS GPSLatitude"), _ascii(tags, "GPS GPSLatitudeRef"), "S")
    lon = _degrees(tags.get("GPS GPSLongitude"), _ascii(tags, "GPS GPSLongitudeRef"), "W")
    if lat is None or lon is None or abs(lat) > _MAX_LAT or abs(lon) > _MAX_LON:
        return None, None
    return round(lat, decimals), round(lon, decimals)


def _degrees(tag: Any, ref: str, negative: str) -> float | None:
    values = getattr(tag, "values", None)
    if not values:
        return None
    try:
        parts = [Fraction(v.numerator, v.denominator) if hasattr(v, "denominator")
                 else Fraction(v) for v in values]
        degrees = parts[0] + (parts[1] / _MINUTES if len(parts) > 1 else 0) \
            + (parts[2] / _SECONDS if len(parts) > 2 else 0)
    except (ZeroDivisionError, ValueError, TypeError):
        return None
    return float(-degrees if ref.strip().upper().startswith(negative) else degrees)


def pillow_extras(data: bytes, tags: dict[str, Any]) -> dict[str, Any]:
    """Pixel width/height and the EXIF UserComment, from Pillow, which reads only the
    header and the EXIF block. When Pillow cannot open the format (HEIC), the size is
    EXIF's claim, which may describe the original before it was downscaled. Pillow is
    optional: without it the size comes from EXIF and the UserComment is not read."""
    try:
        from PIL import Image

        # Pillow warns about corrupt EXIF that exifread already tolerated.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                comment = image.getexif().get_ifd(_EXIF_IFD).get(_USER_COMMENT_TAG)
            return {"width": int(width), "height": int(height),
                    "user_comment": _user_comment(comment)}
    except Exception:  # ImportError, or one of the many types Pillow raises for formats it
        pass           # lacks (HEIC) and broken headers
    for width_tag, height_tag in _SIZE_TAGS:
        width, height = _int(tags.get(width_tag)), _int(tags.get(height_tag))
        if width and height:
            return {"width": width, "height": height}
    return {}


def name_words(blob: Blob, folder_levels: int) -> str:
    """Words from the file name and its folders: "Holiday/IMG_2024_roof-damage.jpg" gives
    "IMG 2024 roof damage Holiday", so a question about the roof finds the photo."""
    names = [blob.name.rsplit(".", 1)[0]]
    if blob.parent is None and blob.path is not None and folder_levels > 0:
        names += [p.name for p in blob.path.parents][:folder_levels]
    words: list[str] = []
    for name in names:
        for token in _WORD_SPLIT.split(name):
            words += [w for w in _CAMEL.split(token) if w]
    return " ".join(words)


def photo_text(words: str, taken: datetime | None, meta: dict[str, Any],
               ocr_text: str | None) -> str:
    """The words a person might search a photo by: its name and folders, camera, day,
    captions and comments, and any text OCR read in it."""
    lines = [f"Photo {words}"]
    camera = " ".join(v for v in (meta.get("camera_make"), meta.get("camera_model")) if v)
    if camera:
        lines.append(f"Camera: {camera}")
    if taken is not None:
        lines.append(f"Taken {taken.strftime(_DATE_WORDS)}")
    for key in (*_TEXT_TAGS, *_XP_TAGS, "user_comment"):
        if meta.get(key):
            lines.append(str(meta[key]))
    if ocr_text:
        lines.append(ocr_text.strip())
    return "\n".join(lines)


def _invoice_from(text: str, blob: Blob, ctx: Context):
    from .invoice import analyse

    return analyse(text, ctx.config, ctx.floating_zone, title=blob.name)


def _invoice_date(invoice: Any, facts: ExifFacts, ctx: Context) -> tuple[datetime | None, str, bool]:
    """The printed invoice date when it is plausible, else what EXIF said (else fallback)."""
    value = invoice.invoice_date
    if ctx.plausible(value):
        return value, invoice.date_source, invoice.date_floating
    return facts.date, facts.date_source, facts.date_floating


def _ascii(tags: dict[str, Any], name: str) -> str:
    tag = tags.get(name)
    if tag is None:
        return ""
    values = getattr(tag, "values", tag)
    if isinstance(values, bytes):
        values = values.decode("utf-8", "replace")
    return str(values).replace("\x00", "").strip()


def _xp_text(tag: Any) -> str:
    values = getattr(tag, "values", None)
    if not values:
        return ""
    try:
        raw = bytes(values) if not isinstance(values, (bytes, str)) else values
        if isinstance(raw, str):
            return raw.replace("\x00", "").strip()
        return raw.decode("utf-16-le", "replace").replace("\x00", "").strip()
    except (TypeError, ValueError):
        return ""


def _user_comment(raw: Any) -> str:
    """EXIF UserComment: an 8-byte code (ASCII, UNICODE, JIS or blank) then the text."""
    if isinstance(raw, str):
        return raw.replace("\x00", "").strip()
    if not isinstance(raw, bytes):
        return ""
    code, body = raw[:_USER_COMMENT_CODE_BYTES], raw[_USER_COMMENT_CODE_BYTES:]
    if code.startswith(b"UNICODE"):
        # The byte order follows the TIFF header; a leading NUL means big-endian ASCII.
        codec = "utf-16-be" if body[:1] == b"\x00" else "utf-16-le"
        text = body.decode(codec, "replace")
    elif code.startswith(b"JIS"):
        text = body.decode("shift_jis", "replace")
    else:
        text = body.decode("utf-8", "replace")
    return text.replace("\x00", "").strip()


def _int(tag: Any) -> int | None:
    values = getattr(tag, "values", None)
    try:
        return int(values[0]) if values else None
    except (TypeError, ValueError, IndexError):
        return None
