import os

# One BLAS thread per process: web and worker processes already run one per core, and OpenBLAS threads
# spinning against each other made inspect requests several times slower under load (bench_inspect.py).
# Set before numpy is first imported; an explicit setting in the environment wins.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

# Load the Celery app with Django so that @shared_task binds to it in every process.
from webapp.celery import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
