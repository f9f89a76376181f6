"""Serving the GUI: bind first (so ``--port 0`` picks a free port we can name), then uvicorn."""

from __future__ import annotations

import errno
import socket
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

import uvicorn

from touchstone.errors import InputError
from touchstone.gui.app import create_app

GRACE_S = 3


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InputError(
                f"--port: Port {port} ist schon belegt (läuft die GUI schon?). Einen anderen "
                "Port wählen oder --port 0 für einen freien."
            ) from exc
        reason = exc.strerror or str(exc)
        raise InputError(f"Die GUI kann {host}:{port} nicht belegen: {reason}") from exc
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


def serve(
    *,
    runs_dir: Path,
    host: str,
    port: int,
    open_browser: bool,
    announce: Callable[[str], None],
) -> None:
    """Serve until interrupted. The browser opens via ``webbrowser`` (which honours BROWSER)."""
    sock = bind(host, port)
    bound_port = int(sock.getsockname()[1])
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{bound_port}/"
    app = create_app(runs_dir, workdir=Path.cwd(), port=bound_port, host=host)
    announce(url)
    threading.Thread(target=app.state.gui.warm, name="warm-run-cache", daemon=True).start()
    if open_browser:
        webbrowser.open(url)
    # Asked to stop, uvicorn waits for open requests; without a bound, one that never ends
    # would keep the GUI running after SIGTERM and Ctrl-C.
    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", timeout_graceful_shutdown=GRACE_S
    )
    uvicorn.Server(config).run(sockets=[sock])
