"""The Celery application: Redis broker, configuration from Django settings (CELERY_*)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

app = Celery("kakurega")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
