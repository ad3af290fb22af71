"""The access log gunicorn writes through webapp.access_log: no client address, user agent, referer, header or
user on any line, and no line at all for the preferences reports endpoint (issue 17)."""

from __future__ import annotations

import datetime
import logging
from types import SimpleNamespace

import pytest
from django.urls import reverse
from gunicorn.config import Config

from tests.helpers import ROOT
from webapp.access_log import UNLOGGED_PATHS, PrivateAccessLogger

ADDRESS, AGENT, REFERER = "203.0.113.77", "Mozilla/5.0 (X11; Linux x86_64) Kakurega-Test/1.0", "https://example.org/x"


def request_environ(method: str, path: str) -> dict:
    return {"REQUEST_METHOD": method, "RAW_URI": path, "PATH_INFO": path, "QUERY_STRING": "",
            "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": ADDRESS, "HTTP_USER_AGENT": AGENT,
            "HTTP_REFERER": REFERER, "HTTP_X_FORWARDED_FOR": "198.51.100.9",
            "HTTP_AUTHORIZATION": "Basic ZHJpbGw6c2VjcmV0"}  # drill:secret, which %(u)s would print


def log_lines(tmp_path, requests: list[tuple[str, str]], access_format: str | None = None) -> list[str]:
    """What gunicorn's access log holds after ``requests`` (method, path), each answered 201, with the logger
    configured the way the Procfiles start gunicorn (``--access-logfile``, ``--logger-class``)."""
    path = tmp_path / "access.log"
    cfg = Config()
    cfg.set("accesslog", str(path))
    cfg.set("logger_class", "webapp.access_log.PrivateAccessLogger")
    if access_format:
        cfg.set("access_log_format", access_format)
    assert cfg.logger_class is PrivateAccessLogger
    logger = cfg.logger_class(cfg)
    headers = [("User-Agent", AGENT), ("Referer", REFERER), ("X-Forwarded-For", "198.51.100.9")]
    for method, url in requests:
        logger.access(SimpleNamespace(status="201 Created", sent=42, headers=[("Content-Type", "application/json")]),
                      SimpleNamespace(headers=headers), request_environ(method, url),
                      datetime.timedelta(milliseconds=12))
    for handler in logging.getLogger("gunicorn.access").handlers:
        handler.flush()
    return path.read_text().splitlines()


def test_a_line_keeps_the_request_and_drops_who_sent_it(tmp_path):
    (line,) = log_lines(tmp_path, [("GET", "/inspect/")])
    assert '"GET /inspect/ HTTP/1.1" 201 42' in line
    for trace in (ADDRESS, "198.51.100.9", "Kakurega-Test", "example.org", "drill"):
        assert trace not in line, line


def test_a_format_asking_for_the_address_still_gets_none(tmp_path):
    (line,) = log_lines(tmp_path, [("GET", "/")], access_format='%(h)s %(u)s "%(r)s" %(a)s %({x-forwarded-for}i)s '
                                                               '%({remote_addr}e)s %(s)s')
    assert line == '- - "GET / HTTP/1.1" - - - 201', line


def test_the_reports_endpoint_writes_no_line(tmp_path):
    reports = reverse("api-preference-reports")
    assert reports in UNLOGGED_PATHS  # the logger's copy of the path is the URLconf's
    lines = log_lines(tmp_path, [("GET", "/preferences/"), ("POST", reports), ("POST", reports + "/"),
                                 ("GET", "/api/v1/preferences/model")])
    assert len(lines) == 2 and "/preferences/ " in lines[0] and "/api/v1/preferences/model" in lines[1], lines
    assert not any("reports" in line for line in lines)


@pytest.mark.parametrize("procfile", ["Procfile", "Procfile.local"])
def test_every_procfile_starts_gunicorn_with_the_private_logger(procfile):
    (web,) = [line for line in (ROOT / procfile).read_text().splitlines() if line.startswith("web:")]
    assert "--logger-class webapp.access_log.PrivateAccessLogger" in web and "--access-logfile -" in web
    assert "--access-logformat" not in web
