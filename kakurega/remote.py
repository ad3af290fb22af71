"""A file job on a Kakurega server over its REST API (docs/api.md): upload the file, start a job of a kind with
its parameters, follow its progress, download its result files, and return the job's summary.

The same job the web pages start, so the files are the web job's. ``Server`` imports nothing of the web app: it
speaks HTTP (httpx) to ``/api/v1/`` with an API token. Errors are exceptions of one family (``ServerError``), each
saying what went wrong as the web says it; ``kakurega.cli.common.run_on_server`` turns them into exit codes."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ProgressCallback = Callable[[int, int, str], None]

#: Seconds to wait for a connection (an unreachable server fails within this) and for an answer.
CONNECT_SECONDS, ANSWER_SECONDS = 5.0, 120.0
#: The first and the longest pause between two polls of a running job.
FIRST_POLL, LONGEST_POLL = 0.2, 2.0
#: Answers to a poll may fail this many times in a row (a web process restarting) before the wait gives up.
POLL_RETRIES = 10
ENDED = ("succeeded", "failed", "cancelled")


class ServerError(Exception):
    """Something a server said or did not say; ``str()`` is the message for a person."""


class BadRequest(ServerError):
    """The server refused the input (400, 413): ``fields`` maps each field at fault (``params.text_columns``,
    ``file``) to the server's messages, as the web pages show them."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        self.fields = fields
        super().__init__("; ".join(f"{field}: {message}" if field else message
                                   for field, messages in fields.items() for message in messages))


class Refused(ServerError):
    """The server refused the token (401, 403), or no token was given."""


class Unreachable(ServerError):
    """The server could not be reached, did not answer in time, or answered as no Kakurega server would."""


class JobFailed(ServerError):
    """The job ended failed (its error says why), was cancelled, or ended without a file that was asked for."""

    def __init__(self, message: str, job: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.job = dict(job or {})


class WaitTimedOut(ServerError):
    """The job did not end within the wait's ``timeout``; it goes on running on the server."""


@dataclass(frozen=True)
class JobRun:
    """A job that ended on the server: its id, its page's address and its summary (the job's ``result``)."""

    id: str
    url: str
    summary: dict


def field_messages(body: Any, prefix: str = "") -> dict[str, list[str]]:
    """A REST error body flattened to field -> messages: ``{"params": {"k": ["…"]}}`` gives ``params.k``, a list
    item's errors ``params.columns[2]``, a CSV error (``{"message": "Row 17, column 3: …", "row": 17, …}``) its
    message, which names the row and column. ``detail`` and ``non_field_errors`` are messages of no field."""
    if isinstance(body, Mapping):
        if isinstance(body.get("message"), str) and ("row" in body or "column" in body):
            return {prefix: [body["message"]]}
        out: dict[str, list[str]] = {}
        for key, value in body.items():
            name = prefix if key in ("detail", "non_field_errors") else (
                f"{prefix}[{key}]" if prefix and str(key).isdigit() else f"{prefix}.{key}" if prefix else str(key))
            for field, messages in field_messages(value, name).items():
                out.setdefault(field, []).extend(messages)
        return out
    if isinstance(body, list):
        out = {}
        for item in body:
            for field, messages in field_messages(item, prefix).items():
                out.setdefault(field, []).extend(messages)
        return out
    return {prefix: [str(body)]}


class Server:
    """A Kakurega server at ``url`` (``http://127.0.0.1:8000``), used with an API token (``token``, else the
    ``KAKUREGA_TOKEN`` environment variable). Use it in a ``with`` block or call ``close()``."""

    def __init__(self, url: str, token: str | None = None, *, connect_seconds: float = CONNECT_SECONDS,
                 answer_seconds: float = ANSWER_SECONDS) -> None:
        token = token if token is not None else os.environ.get("KAKUREGA_TOKEN")
        if not token:
            raise Refused("no API token: give --token T or set KAKUREGA_TOKEN (your account page shows it)")
        self.url = url.rstrip("/")
        self.api = f"{self.url}/api/v1/"
        self._client = httpx.Client(
            headers={"Authorization": f"Token {token}", "Accept": "application/json"},
            timeout=httpx.Timeout(answer_seconds, connect=connect_seconds), follow_redirects=False)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:  # never the token
        return f"Server({self.url!r})"

    def close(self) -> None:
        self._client.close()

    # -- the steps -------------------------------------------------------------------------------------------------
    def upload(self, file: Path | str) -> dict:
        """Upload a CSV file; the upload as the server describes it (``id``, ``original_name``, ``sha256``)."""
        path = Path(file)
        with path.open("rb") as handle:
            return self._json("POST", "uploads/", files={"file": (path.name, handle, "text/csv")})

    def start_job(self, kind: str, params: Mapping[str, Any], inputs: list[str]) -> dict:
        """Start a job of ``kind`` on the uploads ``inputs`` (ids); the job (``id``, ``url``, ``status``)."""
        return self._json("POST", "jobs/", json={"kind": kind, "params": dict(params), "inputs": inputs})

    def job(self, job_id: str) -> dict:
        """The job as its page polls it (status, progress, error, results, result, standing)."""
        return self._json("GET", f"jobs/{job_id}/")

    def cancel(self, job_id: str) -> None:
        """Cancel a queued or running job (one that has ended stays as it is)."""
        try:
            self._json("POST", f"jobs/{job_id}/cancel/")
        except ServerError:
            pass  # ended meanwhile (409), or the server went away: nothing more to do from here

    def wait(self, job_id: str, *, progress: ProgressCallback | None = None, timeout: float | None = None) -> dict:
        """Poll the job until it ends; the ended job. ``progress(done, total, message)`` is called at each poll
        (the message is the job's own, or its place in the queue)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pause, misses = FIRST_POLL, 0
        while True:
            try:
                job = self.job(job_id)
                misses = 0
            except Unreachable:
                misses += 1
                if misses > POLL_RETRIES:
                    raise
                job = None
            if job is not None:
                if progress is not None:
                    progress(*_progress_of(job))
                if job["status"] in ENDED:
                    return job
            if deadline is not None and time.monotonic() > deadline:
                raise WaitTimedOut(f"the job did not end within {timeout:g} s; it goes on at "
                                   f"{self.url}/jobs/{job_id}/ (cancel it there, or wait for it)")
            time.sleep(pause)
            pause = min(LONGEST_POLL, pause * 1.5)

    def download(self, url: str, destination: Path | str) -> Path:
        """Stream a result (or upload) at ``url`` to ``destination``, through a temporary file beside it that is
        renamed at the end: no partial file is ever left at ``destination``."""
        destination = Path(destination)
        with _temporaries([destination]) as (temporary,):
            self._stream_to(url, temporary)
            os.replace(temporary, destination)
        return destination

    # -- all of it ------------------------------------------------------------------------------------------------
    def run(self, kind: str, file: Path | str, params: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
            outputs: Mapping[str, Path | str], *, progress: ProgressCallback | None = None,
            timeout: float | None = None) -> JobRun:
        """Upload ``file``, run a job of ``kind`` with ``params`` on it, wait for it (Ctrl-C cancels it on the
        server) and download its results: ``outputs`` maps the end of a result file's name (``report.json``,
        ``.time-removed.csv``) to the local path to write it to. Every file is downloaded before any is put in
        place, so a failure leaves none of them; each one's folder must exist. The job's summary is in the returned
        ``JobRun``. ``params`` may be a function that returns them, called once the server took the upload (what
        is slow to work out, such as the default model of the posts' language, waits until the server answered)."""
        endings = list(outputs)
        # The temporary files first: an output that cannot be written is found before the job runs, not after.
        with _temporaries([Path(outputs[ending]) for ending in endings]) as temporaries:
            upload = self.upload(file)
            job = self.start_job(kind, params() if callable(params) else params, [upload["id"]])
            try:
                ended = self.wait(job["id"], progress=progress, timeout=timeout)
            except KeyboardInterrupt:
                self.cancel(job["id"])
                raise
            page = f"{self.url}/jobs/{ended['id']}/"
            if ended["status"] == "failed":
                raise JobFailed(f"the job failed: {ended.get('error') or 'no reason given'} ({page})", ended)
            if ended["status"] == "cancelled":
                raise JobFailed(f"the job was cancelled on the server ({page})", ended)
            for ending, temporary in zip(endings, temporaries, strict=True):
                self._stream_to(self._result_path(ended, ending, page), temporary)
            for ending, temporary in zip(endings, temporaries, strict=True):
                os.replace(temporary, outputs[ending])
        return JobRun(id=ended["id"], url=page, summary=ended.get("result") or {})

    @staticmethod
    def _result_path(job: dict, ending: str, page: str) -> str:
        """The download path of the job's one result whose name ends with ``ending``."""
        matches = [result for result in job.get("results", []) if result["name"].endswith(ending)]
        if len(matches) != 1:
            names = ", ".join(result["name"] for result in job.get("results", [])) or "none"
            found = "no result file" if not matches else f"{len(matches)} result files"
            raise JobFailed(f"the job gave {found} ending in {ending!r} (its files: {names}; {page})", job)
        # The path under this server's address, not the absolute download_url: behind a proxy that one may
        # name the address the app sees rather than the one this machine reaches.
        return f"jobs/{job['id']}/results/{matches[0]['id']}/download/"

    # -- HTTP ------------------------------------------------------------------------------------------------------
    def _json(self, method: str, path: str, **kwargs: Any) -> dict:
        with self._request_stream(method, path, **kwargs) as response:
            response.read()
        try:
            return response.json() if response.content else {}
        except ValueError:
            raise Unreachable(f"{self.url} answered {method} {path} with something other than JSON "
                              f"(is it a Kakurega server?)") from None

    @contextmanager
    def _request_stream(self, method: str, path: str, **kwargs: Any) -> Iterator[httpx.Response]:
        url = path if path.startswith(("http://", "https://")) else self.api + path
        try:
            with self._client.stream(method, url, **kwargs) as response:
                if response.status_code >= 300:
                    response.read()
                    raise _error_of(response, self.url)
                yield response
        except httpx.TimeoutException as exc:
            raise Unreachable(f"{self.url} did not answer in time ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            raise Unreachable(f"cannot reach {self.url}: {_reason(exc)}") from None

    def _stream_to(self, url: str, path: Path) -> None:
        with self._request_stream("GET", url) as response, path.open("wb") as out:
            for chunk in response.iter_bytes():
                out.write(chunk)


@contextmanager
def _temporaries(destinations: list[Path]) -> Iterator[list[Path]]:
    """A temporary file beside each destination (same file system, so renaming it there is atomic), removed
    at the end unless it was renamed."""
    made: list[Path] = []
    try:
        for destination in destinations:
            try:
                handle, name = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".part",
                                                dir=destination.parent)
            except OSError as exc:  # said of the file asked for, not of the temporary name
                raise OSError(exc.errno, exc.strerror, str(destination)) from None
            os.close(handle)
            made.append(Path(name))
        yield made
    finally:
        for temporary in made:
            temporary.unlink(missing_ok=True)


def _progress_of(job: dict) -> tuple[int, int, str]:
    progress = job.get("progress") or {}
    if job["status"] == "queued":
        message = (job.get("standing") or {}).get("brief") or "queued"
    else:
        message = progress.get("message") or job["status"]
    return int(progress.get("done") or 0), int(progress.get("total") or 0), message


def _error_of(response: httpx.Response, server: str) -> ServerError:
    """The exception for an answer of 300 or more, with what the server said."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") if isinstance(body, dict) else None
    if status in (401, 403):
        said = f" ({detail})" if detail else ""
        return Refused(f"the server refused the token{said}")
    if status in (400, 413) and body is not None:
        return BadRequest(field_messages(body))
    if status == 413:
        return BadRequest({"file": ["the file is larger than the server takes (413)"]})
    if status == 429:
        wait = response.headers.get("Retry-After")
        return Unreachable(f"the server asks to slow down (429){f'; retry after {wait} s' if wait else ''}")
    if 300 <= status < 400:
        return Unreachable(f"{server} redirects to {response.headers.get('Location', '?')}: give that address "
                           f"as the server")
    if status == 404 and body is None:
        return Unreachable(f"{server} has no Kakurega API at {response.request.url.path} (404)")
    said = detail or (str(body) if body is not None else response.reason_phrase)
    return Unreachable(f"the server answered {status}: {said}") if status >= 500 else (
        ServerError(f"the server answered {status}: {said}"))


def _reason(exc: httpx.TransportError) -> str:
    """Why a connection failed, without the request (the URL is said by the caller)."""
    cause = exc.__cause__ or exc.__context__
    text = str(cause or exc) or type(exc).__name__
    for known in ("Connection refused", "Name or service not known", "No route to host",
                  "Temporary failure in name resolution", "Network is unreachable"):
        if known in text:
            return known.lower()
    return text
