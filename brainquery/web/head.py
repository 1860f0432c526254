"""HEAD answers as GET does, without the body (RFC 9110 §9.3.2): FastAPI registers a GET
route for GET alone, so a link checker's or `curl -I`'s HEAD met 405 Method Not Allowed."""
from __future__ import annotations


class HeadAsGet:
    """ASGI middleware: a HEAD request runs as the GET it stands for; the status and the
    headers (Content-Length included) go out, the body does not."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "HEAD":
            return await self.app(scope, receive, send)

        async def headers_only(message):
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
