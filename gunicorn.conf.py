"""Gunicorn settings read from the working directory by `gunicorn` (Procfile, make run)."""


def post_worker_init(worker) -> None:
    """Load the active location models and their tokenizers before the first request, so the first visitor
    of each worker does not wait for MeCab / spaCy to start."""
    try:
        from anonymizer.location.web.selectors import warm_location_models

        warm_location_models()
    except Exception as exc:  # a worker that cannot warm up still serves; the first request loads lazily
        worker.log.warning("Could not preload the location models: %s", exc)
