"""Chat calls: the seam both roles call (``seam``), its OpenAI-compatible implementation
(``endpoint``) over the transport (``chat``) and the replies it reads, and the fake for tests
(``fake``).

The package re-exports nothing: import from the module that defines a name, so that a
command loads only what it uses (a settled resume imports no call machinery).
"""
