"""A server that takes one connection at a time: busy, not dead (design.md §15, issue 21).

A gate on loopback in front of the simulator accepts every connection but closes at once
(before any reply) those that arrive while another one is open: the refusal a client sees
from a server whose listen queue overflows, without waiting for SYN retries.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PackRun
from touchstone.sim import SimServer
from touchstone.store import RunDir


class OneAtATime:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.open = 0
        self.refused = 0
        self.stopping = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def serve(self) -> None:
        while not self.stopping:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                busy = self.open >= 1
                if busy:
                    self.refused += 1
                else:
                    self.open += 1
            if busy:
                client.close()
                continue
            threading.Thread(target=self.relay, args=(client,), daemon=True).start()

    def relay(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.target_port))

        def pump(source: socket.socket, sink: socket.socket) -> None:
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                for sock in (source, sink):
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)

        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join()
        client.close()
        upstream.close()
        with self.lock:
            self.open -= 1


@pytest.fixture
def gate(sim: SimServer) -> Iterator[OneAtATime]:
    server = OneAtATime(sim.port)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    yield server
    server.stopping = True
    server.listener.close()


def test_a_server_taking_one_connection_at_a_time_answers_every_cell(
    gate: OneAtATime, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    through_gate = PackRun(gate.base_url, tiny_pack_path, out)
    outcome = through_gate("sim-gut", variants=["none"], concurrency=16, call_timeout_s=20)
    assert gate.refused > 0  # it did refuse connections
    assert outcome.summary.complete and not outcome.summary.failures
    assert len(RunDir(out).load_responses()) == 3
