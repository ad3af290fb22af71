"""Per-client rate limits, counted in the shared Redis cache so every web process sees the same counts, and the
one definition of a client's address that they, the login lockout (django-axes) and the logs share."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext
from rest_framework.exceptions import Throttled
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


def client_address(request: HttpRequest) -> str:
    """The address the request came from: REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies the entry of
    X-Forwarded-For that the outermost trusted proxy appended. A client can put anything in that header, so
    only entries written by our own proxies count (the rightmost ones)."""
    # Always an IP address (the login lockout stores it in a GenericIPAddressField): a server that leaves
    # REMOTE_ADDR empty (a unix socket) counts as one client.
    remote = _ip_or(request.META.get("REMOTE_ADDR", ""), "0.0.0.0")
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if not forwarded:
        return remote
    return _ip_or(forwarded[-min(proxies, len(forwarded))], remote)


def _ip_or(value: str, fallback: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return fallback


class ClientRateThrottle(SimpleRateThrottle):
    """A rate per signed-in user or per client address; the cache being down lets the request through (the
    service stays up; /healthz shows the cause)."""

    def __init__(self) -> None:  # the rate may depend on the request: see allow_request
        pass

    def rate_for(self, request) -> str:
        raise NotImplementedError

    def cost(self, request) -> int:
        """How many of the rate's requests this request counts as (a batch: one per item)."""
        return 1

    def allow_request(self, request, view) -> bool:
        self.rate = self.rate_for(request)
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.units = self.cost(request)
        if self.units > self.num_requests:  # would never fit: say so instead of "retry later"
            raise Throttled(detail=self.too_large(request))
        try:
            self.key = self.get_cache_key(request, view)
            self.history = self.cache.get(self.key, [])
            self.now = self.timer()
            while self.history and self.history[-1] <= self.now - self.duration:
                self.history.pop()
            if len(self.history) + self.units > self.num_requests:
                return False
            self.history[:0] = [self.now] * self.units
            self.cache.set(self.key, self.history, self.duration)
            return True
        except Exception as exc:  # the cache (Redis) is down or hung
            logger.warning("Rate limit %s not checked, the cache is unavailable: %s", self.scope, exc)
            return True

    def wait(self) -> float | None:
        """Seconds until enough of the history has aged out for this request's cost."""
        over = len(self.history) + self.units - self.num_requests
        if over <= 0 or not self.history:
            return None
        return max(0.0, self.duration - (self.now - self.history[-min(over, len(self.history))]))

    def too_large(self, request) -> str:
        return gettext("This request counts %(units)s against a limit of %(rate)s.") % {
            "units": self.units, "rate": self.rate}

    def get_ident(self, request) -> str:
        return client_address(getattr(request, "_request", request))

    def get_cache_key(self, request, view) -> str:
        user = getattr(request, "user", None)
        ident = f"user-{user.pk}" if user is not None and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class InspectThrottle(ClientRateThrottle):
    """INSPECT_RATE_USER per signed-in user, INSPECT_RATE_ANON per address for everyone else; each post of a
    batch counts (a batch of 100 is 100 posts' work, not one request's)."""

    scope = "inspect"

    def rate_for(self, request) -> str:
        return settings.INSPECT_RATE_USER if request.user.is_authenticated else settings.INSPECT_RATE_ANON

    def cost(self, request) -> int:
        data = request.data
        texts = data.get("texts") if hasattr(data, "get") else None
        # A batch longer than INSPECT_MAX_BATCH is refused by its serializer (400 naming the limit) at no cost.
        return len(texts) if isinstance(texts, list) and 0 < len(texts) <= settings.INSPECT_MAX_BATCH else 1

    def too_large(self, request) -> str:
        values = {"units": self.units, "rate": self.rate, "most": self.num_requests}
        if request.user.is_authenticated:
            return gettext("Each post of a batch counts against the inspect limit: %(units)s posts is more than the "
                           "%(rate)s allowed (INSPECT_RATE_USER); send at most %(most)s per request.") % values
        return gettext("Each post of a batch counts against the inspect limit: %(units)s posts is more than the "
                       "%(rate)s allowed (INSPECT_RATE_ANON); send at most %(most)s per request, or sign in "
                       "(%(user_rate)s).") % {**values, "user_rate": settings.INSPECT_RATE_USER}


class AddressRateThrottle(ClientRateThrottle):
    """A rate per client address, whoever is signed in (the account is never the key)."""

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AuthThrottle(AddressRateThrottle):
    """AUTH_RATE attempts per client address at the sign-in, token, sign-up, admin-login, password-change and
    account-deletion forms, whoever is signed in: guessing passwords across many usernames, or probing which
    usernames exist, is slow."""

    scope = "auth"

    def rate_for(self, request) -> str:
        return settings.AUTH_RATE


# The URL names whose POSTs are credential checks or account creation.
_AUTH_URL_NAMES = ("login", "api-obtain-token", "signup", "admin:login", "password_change", "account-delete")


class AuthRateLimitMiddleware:
    """Answers 429 to a POST at a sign-in, token, sign-up or password-checking endpoint once the address used up
    AUTH_RATE."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self._paths: frozenset[str] | None = None

    def _auth_paths(self) -> frozenset[str]:
        if self._paths is None:  # resolved lazily: the URLconf is not loaded when middleware is built
            self._paths = frozenset(reverse(name) for name in _AUTH_URL_NAMES)
        return self._paths

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path in self._auth_paths():
            throttle = AuthThrottle()
            if not throttle.allow_request(request, None):
                wait = throttle.wait()
                minutes = max(1, round((wait or 60) / 60))
                if request.path.startswith("/api/"):
                    detail = gettext("Too many sign-in attempts from your address; try again in %(minutes)s "
                                     "minute(s).") % {"minutes": minutes}
                    response = JsonResponse({"detail": detail, "code": "throttled"}, status=429)
                else:
                    body = render_to_string("registration/too_many_attempts.html", {"wait_minutes": minutes},
                                            request=request)
                    response = HttpResponse(body, status=429)
                if wait:
                    response["Retry-After"] = str(int(wait) + 1)
                return response
        return self.get_response(request)


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """What django-axes answers a sign-in to a locked username from this address (AXES_LOCKOUT_CALLABLE)."""
    minutes = settings.LOGIN_LOCKOUT_MINUTES
    message = gettext("Too many wrong passwords for this account from your address: signing in to it, or "
                      "confirming its password, from here is locked for %(minutes)s minutes.") % {"minutes": minutes}
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": message, "code": "locked_out"}, status=429)
    else:
        response = HttpResponse(render_to_string("registration/locked_out.html", {"message": message},
                                                 request=request), status=429)
    response["Retry-After"] = str(minutes * 60)
    return response

