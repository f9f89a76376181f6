"""The GUI's guards (design.md §9, §15), as plain ASGI middleware.

- ``LocalOnly``: the Host header must name this GUI on loopback (DNS rebinding), and every
  request that changes something must carry this GUI's own Origin (CSRF); a request with
  two Host or two Origin headers is a 400 (the check reads one, the app might read another).
- ``BodyLimit``: a request body over ``MAX_BODY`` bytes gets 413 without being read: by its
  Content-Length at once, a chunked one as soon as it passes the limit.
- ``Hardened``: no response is sniffed into another type, none can be framed, and one that
  sets no Content-Security-Policy of its own (JSON, CSV, text, static files) gets
  ``INERT_POLICY``: should it ever carry HTML, that runs no script, in no origin.

Script in the GUI's origin can do all its pages can (start a job with the user's key), so
foreign HTML is kept out of that origin: the pages allow only their own script
(``page_policy``), and the report a run dir stands for is rendered by the GUI, never served
from the dir (app.py).
"""

from __future__ import annotations

import json
import secrets

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY = 1024 * 1024
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


# Nothing may load, nothing may run, and the document is in a unique origin of its own.
INERT_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
# The report the GUI renders: its own inline CSS and nothing else; no script (it has none).
REPORT_POLICY = (
    "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def page_policy(nonce: str) -> str:
    """The GUI's own pages: their script file and the inline script carrying ``nonce``.
    Inline style stays allowed (the scorecard's bars are sized by style attributes)."""
    return (
        f"default-src 'self'; script-src 'self' 'nonce-{nonce}'; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


def new_nonce() -> str:
    return secrets.token_urlsafe(18)


def allowed_hosts(port: int, host: str) -> frozenset[str]:
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host not in ("0.0.0.0", "::", ""):
        names.add(host)
    return frozenset(f"{name}:{port}" for name in names)


async def _refuse(send: Send, status: int, message: str, api: bool) -> None:
    if api:
        body = json.dumps({"detail": message}, ensure_ascii=False).encode()
        content_type = b"application/json"
    else:
        body = message.encode()
        content_type = b"text/plain; charset=utf-8"
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    if status == 413:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def _repeated(scope: Scope, *names: bytes) -> str:
    """The first of ``names`` that the request carries more than once, or "". No browser
    sends two Host or two Origin headers; a check that reads one of them would pass the
    other (RFC 9112 §3.2: more than one Host is a 400)."""
    seen = [key for key, _ in scope.get("headers", []) if key in names]
    return next((name.decode() for name in names if seen.count(name) > 1), "")


class LocalOnly:
    def __init__(self, app: ASGIApp, *, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = frozenset(f"http://{h}" for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            api = str(scope.get("path", "")).startswith("/api/")
            repeated = _repeated(scope, b"host", b"origin")
            if repeated:
                words = f"Ungültige Anfrage: mehr als eine {repeated.title()}-Kopfzeile"
                await _refuse(send, 400, words, api)
                return
            if _header(scope, b"host") not in self.hosts:
                await _refuse(send, 403, "Verboten: unbekannter Host", api)
                return
            if (
                scope["method"] not in _SAFE_METHODS
                and _header(scope, b"origin") not in self.origins
            ):
                await _refuse(send, 403, "Verboten: fremde oder fehlende Herkunft", api)
                return
        await self.app(scope, receive, send)


class _TooLarge(Exception):
    pass


class BodyLimit:
    def __init__(self, app: ASGIApp, *, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/api/")
        message = f"Anfrage zu groß: mehr als {self.limit // 1024 // 1024} MB werden nicht gelesen."
        length = _header(scope, b"content-length")
        if length.isdigit() and int(length) > self.limit:
            await _refuse(send, 413, message, api)
            return
        seen = 0
        started = False

        async def counting() -> Message:
            nonlocal seen
            event = await receive()
            if event["type"] == "http.request":
                seen += len(event.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return event

        async def tracking(event: Message) -> None:
            nonlocal started
            started = started or event["type"] == "http.response.start"
            await send(event)

        try:
            await self.app(scope, counting, tracking)
        except _TooLarge:
            if not started:
                await _refuse(send, 413, message, api)


class Hardened:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def hardening(event: Message) -> None:
            if event["type"] == "http.response.start":
                headers = [
                    (key, value)
                    for key, value in event.get("headers", [])
                    if key.lower() not in (b"x-content-type-options", b"x-frame-options")
                ]
                headers += [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY")]
                if not any(key.lower() == b"content-security-policy" for key, _ in headers):
                    headers.append((b"content-security-policy", INERT_POLICY.encode()))
                event = {**event, "headers": headers}
            await send(event)

        await self.app(scope, receive, hardening)
