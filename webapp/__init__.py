from anonymizer.threads import prefer_one_thread

# One BLAS thread per process (anonymizer/threads.py says why), set before numpy is first imported; an explicit
# setting in the environment wins.
prefer_one_thread()

# Load the Celery app with Django so that @shared_task binds to it in every process.
from webapp.celery import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
