"""``python -m touchstone``: the same CLI as the ``touchstone`` console script."""

from touchstone.cli import main

main()
