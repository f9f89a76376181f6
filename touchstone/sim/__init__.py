"""A simulated OpenAI-compatible server for the demo, the tests and the benchmarks (design.md §7).

It is a simulator and says so: every answer it writes starts with "Simulierte Antwort".
Its behaviour is chosen by the requested model name; ``NAME@SECONDS`` (e.g. ``sim-judge@0.2``)
makes the reply (or the error, or the first byte of a stream) leave that long after the
request arrived: the simulator's own work counts toward it, so a benchmark sees the latency
it asked for. The call is counted when it arrives.

Answerers (streaming and not):
    sim-gut, sim-mittel, sim-schwach   answers of quality 5, 3 and 1 (of 5)
    sim-denker                         good answers with ``reasoning_content`` before them
    sim-ausufernd                      answers of quality 4 that run to about 1,000 tokens: cut
                                       at a smaller ``max_tokens`` (finish_reason "length")
Judges (``judges``):
    sim-judge       valid verdict JSON: from the quality a simulated answer states; any other
                    answer read like a crude, honest examiner (passes ``judge-check``)
    sim-gullible    the top score for every answer (a judge ``judge-check`` must reject)
    sim-constant    the same middle score for every answer (likewise)
    sim-langsam     a good judge without thinking on a slow server: ≈ 10 tokens/s streamed
                    (``@S``: S seconds to the first token, as slow prompt processing)
Faults:
    sim-hang        accepts the request and never answers
    sim-drop        reads the request, then closes the connection without a reply
    sim-trickle     200, then a byte of whitespace (or an SSE comment) every 0.2 s, forever
    sim-think-endless  a stream of reasoning that never ends (plain: like sim-trickle)
    sim-reasoning   reasoning only, empty content (finish_reason "length" when max_tokens set)
    sim-garbage     prose without any JSON
    sim-500, sim-429, sim-401, sim-403   that HTTP status
    sim-quota, sim-402   quota exhausted: 429 insufficient_quota, 402 (OpenRouter's credits)
    sim-proxy-filter, sim-proxy-unknown-model, sim-proxy-no-db
                    a content filter, a misspelt model and a wrong key as a LiteLLM proxy
                    reports them: each a 400 with code "400"
    sim-filter      400 with a content-filter error (the input was refused)
    sim-flaky       alternates: 500 on every other call, a good judge otherwise
    sim-plaintext   a good judge that labels its JSON as text/plain (seen in the wild)
    sim-picky       a good judge whose content filter refuses every prompt mentioning "IBAN"
    sim-old         a good answerer that rejects ``stream_options`` like older servers
    sim-runaway     generates without end: streamed until the client leaves, not streamed
                    blind to the client (until ``runaway_limit_s``), as llama.cpp does
    sim-cutoff      a reply that breaks off: a stream ending after its first piece (no
                    finish_reason, no [DONE]); a body shorter than its Content-Length
    sim-nochoices   a chat completion (or stream) without a single choice
    sim-bomb        a gzip body of about 1 MB that inflates to 1 GB (one giant line or body)
    sim-flood       content without end (up to 1 GB), in pieces of a few kilobytes
    sim-longline    one SSE line (or JSON body) of 1 GB, never ended
    sim-parts       content as a list of parts, with a thinking part, as Mistral sends it
    sim-choices     a thousand choices, in reverse order: only choice 0 is the answer
    sim-bignum      a complete reply whose ``created`` is an integer of 4,301 digits (JSON
                    allows it, Python's json refuses it)
    any other name  404 model_not_found

``SimServer(capacity=N)`` (``touchstone sim --capacity N``) takes at most N generations at
once and answers 429 with ``Retry-After``/``retry-after-ms`` to the rest, like a rate-limited
provider. ``SimServer(keep_alive_s=S, keep_alive_max=N)`` closes kept-alive connections as
llama.cpp's HTTP library does (``plumbing.SimHTTPServer``).
"""

from touchstone.sim.catalogue import ANSWERERS, MODELS
from touchstone.sim.server import SimServer

__all__ = ["ANSWERERS", "MODELS", "SimServer"]
