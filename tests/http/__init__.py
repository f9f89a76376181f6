"""Tests against real HTTP servers on 127.0.0.1: the transport with the openai SDK."""
