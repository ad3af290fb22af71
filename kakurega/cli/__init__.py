"""The ``kakurega`` command: one module per command (``register(app)`` adds it), the shared options and error
reporting in ``common``."""
