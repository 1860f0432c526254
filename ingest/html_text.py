"""HTML to readable text: tags, scripts and styles dropped, blocks kept as lines."""
from __future__ import annotations

import re
from html.parser import HTMLParser

_SKIP = {"script", "style", "head", "title", "noscript", "template", "svg"}
_BLOCK = {
    "p", "div", "br", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6",
    "section", "article", "header", "footer", "blockquote", "pre", "hr", "dd", "dt",
}


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _SKIP:
            self._skip_depth += 1
        elif tag in _BLOCK:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(data)


_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u200b]+")
_BLANKS = re.compile(r"\n\s*\n\s*(\n\s*)+")


def html_to_text(html: str) -> str:
    parser = _TextExtractor()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):
        pass  # malformed markup: keep what was read so far
    text = "".join(parser.parts)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()
