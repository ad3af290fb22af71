"""``python -m kakurega``: the ``kakurega`` command without its console script."""

from kakurega.cli.main import main

main()
