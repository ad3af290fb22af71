"""Per-client rate limits, counted in the shared Redis cache so every web process sees the same counts."""

from __future__ import annotations

import logging

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


class InspectThrottle(SimpleRateThrottle):
    """INSPECT_RATE_USER per signed-in user, INSPECT_RATE_ANON per address for everyone else."""

    scope = "inspect"

    def __init__(self) -> None:  # the rate depends on the request, see allow_request
        pass

    def allow_request(self, request, view) -> bool:
        self.rate = settings.INSPECT_RATE_USER if request.user.is_authenticated else settings.INSPECT_RATE_ANON
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except Exception as exc:  # the cache (Redis) is down: serve rather than fail; /healthz shows the cause
            logger.warning("Rate limit not checked, the cache is unavailable: %s", exc)
            return True

    def get_cache_key(self, request, view) -> str:
        ident = f"user-{request.user.pk}" if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}
