"""touchstone: evaluate LLMs on task packs, scored by an LLM judge."""

__version__ = "0.1.0"
