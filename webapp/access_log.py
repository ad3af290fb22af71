"""Gunicorn's access log without anything that points at a person (issue 17).

Every line keeps the request line, the status, the size and the duration, and drops the client address, the
user agent, the referer and the signed-in user (who also shows in the address's requests). The preferences
reports endpoint gets no line at all: its contributions are stored with their day only, and a line's time of
day would otherwise put them back in order next to any other log that has addresses (a proxy's, the page's
own GET). Start gunicorn with ``--logger-class webapp.access_log.PrivateAccessLogger`` (both Procfiles do).
"""

from __future__ import annotations

from gunicorn.glogging import Logger

# The path of "api-preference-reports" (anonymizer/preferences/web/urls.py; a test checks they agree). Gunicorn
# builds its logger before Django's URLconf can be loaded, so it is written out here.
UNLOGGED_PATHS = frozenset({"/api/v1/preferences/reports"})
# The atoms a line may show (gunicorn's names): request line, method, path, query, protocol, status, size,
# duration, time, worker pid. Any other (%(h)s, %(a)s, %(f)s, %(u)s, {header}i, {variable}e) prints "-", whatever
# --access-logformat asks for.
KEPT_ATOMS = frozenset("r m U q H s b B T D M L t l p".split())


class PrivateAccessLogger(Logger):
    """A gunicorn logger whose access lines carry no client address, user agent, referer, header or user."""

    def access(self, resp, req, environ, request_time) -> None:
        if environ.get("PATH_INFO", "").rstrip("/") in UNLOGGED_PATHS:
            return
        super().access(resp, req, environ, request_time)

    def atoms(self, resp, req, environ, request_time) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        return {key: value for key, value in atoms.items() if key in KEPT_ATOMS}
