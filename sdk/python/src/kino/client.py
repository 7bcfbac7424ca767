"""kino's client: the REST API over urllib, with errors carrying kino's code,
retries of 429 and 503 after Retry-After, waits on a job with its progress,
Server-Sent Events as an iterator, and uploads."""

from __future__ import annotations

import json
import os
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterator, List, Mapping, Optional, TypeVar, Union, cast

from . import types as t

__all__ = ["Kino", "KinoError", "Preview", "Upload", "ServerEvent"]

R = TypeVar("R", bound=Mapping[str, Any])

RENDER_DONE = frozenset({"completed", "failed", "cancelled"})
JOB_DONE = frozenset({"complete", "failed", "cancelled"})
RUN_DONE = frozenset({"complete", "completed", "failed", "cancelled"})


class KinoError(Exception):
    """Every failure kino answers: its code and message, and the HTTP status.

    code is kino's (VALIDATION_ERROR, JOB_NOT_FOUND, RATE_LIMITED, …), or
    NETWORK_ERROR with status 0 when no answer came. retry_after is the
    Retry-After header in seconds; details each problem of a request with
    several, as {field, message}.
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        retry_after: Optional[float] = None,
        details: Optional[List[Dict[str, str]]] = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.details = details


@dataclass(frozen=True)
class Preview:
    """One frame of a render as a picture."""

    content_type: str
    data: bytes


@dataclass(frozen=True)
class Upload:
    """A file kept for a while by POST /uploads; download_url is a source
    any render or media job of the organisation may use."""

    id: str
    filename: str
    size: int
    content_type: str
    download_url: str
    expires_at: int


@dataclass(frozen=True)
class ServerEvent:
    """One Server-Sent Event."""

    event: str
    data: str


Source = Union[str, "os.PathLike[str]", bytes, IO[bytes]]


class Kino:
    """The client: one per kino and API key.

    base_url is kino's REST address (http://127.0.0.1:8080), api_key the
    organisation's key when kino has keys. A 429 or 503 is sent again after
    its Retry-After plus up to 250 ms of jitter, up to max_retries times;
    submits carry an Idempotency-Key so that a repeat is never made twice.
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        *,
        max_retries: int = 3,
        timeout: float = 60.0,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.timeout = timeout
        self.headers = dict(headers or {})
        self.renders = Renders(self)
        self.jobs = Jobs(self)
        self.uploads = Uploads(self)
        self.assets = Assets(self)
        self.templates = Templates(self)
        self.pipelines = Pipelines(self)

    def usage(self, from_: Optional[str] = None, to: Optional[str] = None) -> t.GetUsageResponse:
        """The organisation's usage by UTC day and type (GET /usage); days are YYYY-MM-DD."""
        return cast(t.GetUsageResponse, self._json("GET", "/usage", query={"from": from_, "to": to}))

    def org(self) -> t.CurrentOrg:
        """Whose key this is, its limits and storage (GET /orgs/current)."""
        return cast(t.CurrentOrg, self._json("GET", "/orgs/current")["data"])

    # The transport.

    def _json(self, method: str, path: str, **kw: Any) -> Any:
        with self._send(method, path, **kw) as res:
            return json.loads(res.read() or b"null")

    def _send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        json_body: Any = None,
        body: Optional[Callable[[], Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        submit: bool = False,
        idempotency_key: Optional[str] = None,
        once: bool = False,
        accept: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        url = self.base_url + path
        q = {k: str(v) for k, v in (query or {}).items() if v is not None and v != ""}
        if q:
            url += "?" + urllib.parse.urlencode(q)
        h = {**self.headers, **(headers or {})}
        if self.api_key:
            h["Authorization"] = "Bearer " + self.api_key
        if accept:
            h["Accept"] = accept
        if json_body is not None:
            h["Content-Type"] = "application/json"
        if submit:
            h["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        retries = 0 if once else self.max_retries
        attempt = 0
        while True:
            data = json.dumps(json_body).encode() if json_body is not None else (body() if body else None)
            req = urllib.request.Request(url, data=data, method=method, headers=h)
            try:
                return urllib.request.urlopen(req, timeout=timeout or self.timeout)
            except urllib.error.HTTPError as e:
                err = _read_error(e)
                if e.code in (429, 503) and attempt < retries:
                    wait = err.retry_after + random.random() * 0.25 if err.retry_after is not None else _backoff(attempt)
                    time.sleep(wait)
                    attempt += 1
                    continue
                raise err from None
            except (urllib.error.URLError, OSError) as e:
                # No answer: sent again only when a repeat cannot do twice.
                if (method == "GET" or submit) and attempt < retries:
                    time.sleep(_backoff(attempt))
                    attempt += 1
                    continue
                raise KinoError("NETWORK_ERROR", str(getattr(e, "reason", e)), 0) from e
            finally:
                # A file the client opened itself (an upload from a path) is
                # closed after each attempt; a caller's own file is the caller's.
                if not once and hasattr(data, "close"):
                    data.close()

    def _events(self, path: str, timeout: Optional[float]) -> Iterator[Dict[str, Any]]:
        res = self._send("GET", path, accept="text/event-stream", timeout=timeout)
        with res:
            for ev in sse(res):
                if ev.event == "error":
                    e = json.loads(ev.data)
                    raise KinoError(e.get("code", "INTERNAL"), e.get("message", ""), res.status)
                yield json.loads(ev.data)

    def _wait(
        self,
        path: str,
        done: frozenset[str],
        get: Callable[[], R],
        on_progress: Optional[Callable[[R], None]],
        stream_timeout: float,
    ) -> R:
        while True:
            try:
                for rec in self._events(path, stream_timeout):
                    if on_progress:
                        on_progress(cast(R, rec))
                    if rec.get("status") in done:
                        return cast(R, rec)
            except (socket.timeout, TimeoutError, ConnectionError):
                # A quiet or cut stream is opened again.
                pass
            except KinoError as e:
                if e.code != "NETWORK_ERROR":
                    raise
            last = get()
            if last.get("status") in done:
                if on_progress:
                    on_progress(last)
                return last
            time.sleep(0.25 + random.random() * 0.25)


class Renders:
    """Renders: /api/render."""

    def __init__(self, k: Kino) -> None:
        self._k = k

    def submit(self, request: t.SubmitRenderRequest, *, idempotency_key: Optional[str] = None) -> t.SubmitRenderResponse:
        """Submits a render; it is queued."""
        return cast(
            t.SubmitRenderResponse,
            self._k._json("POST", "/api/render", json_body=request, submit=True, idempotency_key=idempotency_key),
        )

    def get(self, job_id: str) -> t.RenderJob:
        """A render's status record."""
        return cast(t.RenderJob, self._k._json("GET", "/api/render/" + _q(job_id)))

    def cancel(self, job_id: str) -> t.CancelRenderResponse:
        """Cancels a render that has not ended (400 JOB_NOT_CANCELLABLE otherwise)."""
        return cast(t.CancelRenderResponse, self._k._json("DELETE", "/api/render/" + _q(job_id)))

    def list(self, status: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> t.ListRendersResponse:
        """The organisation's renders, newest first: {data, meta}."""
        q = {"status": status, "limit": limit, "offset": offset}
        return cast(t.ListRendersResponse, self._k._json("GET", "/api/render", query=q))

    def request(self, job_id: str) -> t.RenderSubmission:
        """The request a render was made from, ready to submit again."""
        return cast(t.RenderSubmission, self._k._json("GET", "/api/render/" + _q(job_id) + "/request"))

    def events(self, job_id: str, *, timeout: Optional[float] = None) -> Iterator[t.RenderJob]:
        """The render's record at once, then at every change, until it ends (SSE)."""
        return cast(Iterator[t.RenderJob], self._k._events("/api/render/" + _q(job_id) + "/events", timeout))

    def wait(
        self, job_id: str, on_progress: Optional[Callable[[t.RenderJob], None]] = None, *, stream_timeout: float = 300.0
    ) -> t.RenderJob:
        """Waits for the render to end and returns its last record (completed, failed or cancelled)."""
        path = "/api/render/" + _q(job_id) + "/events"
        return self._k._wait(path, RENDER_DONE, lambda: self.get(job_id), on_progress, stream_timeout)

    def preview(
        self, request: t.SubmitRenderRequest, *, time: float, width: Optional[int] = None, format: Optional[str] = None
    ) -> Preview:
        """The picture of the frame a render of request shows at time (seconds); format jpg or png."""
        body: Dict[str, Any] = {**request, "time": time}
        if width is not None:
            body["width"] = width
        if format is not None:
            body["format"] = format
        with self._k._send("POST", "/api/render/preview", json_body=body) as res:
            return Preview(res.headers.get("Content-Type", "application/octet-stream"), res.read())


class Jobs:
    """Media jobs: /jobs."""

    def __init__(self, k: Kino) -> None:
        self._k = k

    def create(self, request: t.CreateJobRequest, *, idempotency_key: Optional[str] = None) -> t.Job:
        """Creates a media job; it waits for a worker."""
        return cast(t.Job, self._k._json("POST", "/jobs", json_body=request, submit=True, idempotency_key=idempotency_key)["data"])

    def get(self, job_id: str) -> t.Job:
        """A media job's record."""
        return cast(t.Job, self._k._json("GET", "/jobs/" + _q(job_id))["data"])

    def list(
        self, status: Optional[str] = None, type: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ListJobsResponse:
        """The organisation's media jobs, newest first: {data, meta}."""
        q = {"status": status, "type": type, "limit": limit, "offset": offset}
        return cast(t.ListJobsResponse, self._k._json("GET", "/jobs", query=q))

    def cancel(self, job_id: str) -> t.Job:
        """Cancels a media job that has not ended."""
        return cast(t.Job, self._k._json("POST", "/jobs/" + _q(job_id) + "/cancel")["data"])

    def types(self) -> List[t.JobType]:
        """The job type catalogue."""
        return cast(List[t.JobType], self._k._json("GET", "/jobs/types")["data"])

    def events(self, job_id: str, *, timeout: Optional[float] = None) -> Iterator[t.Job]:
        """The job's record at once, then at every change, until it ends (SSE)."""
        return cast(Iterator[t.Job], self._k._events("/jobs/" + _q(job_id) + "/events", timeout))

    def wait(self, job_id: str, on_progress: Optional[Callable[[t.Job], None]] = None, *, stream_timeout: float = 300.0) -> t.Job:
        """Waits for the job to end and returns its last record (complete, failed or cancelled)."""
        return self._k._wait("/jobs/" + _q(job_id) + "/events", JOB_DONE, lambda: self.get(job_id), on_progress, stream_timeout)


class Uploads:
    """File uploads: POST /uploads, kept for a while, read as sources by renders and jobs."""

    def __init__(self, k: Kino) -> None:
        self._k = k

    def create(self, source: Source, *, filename: Optional[str] = None, content_type: Optional[str] = None) -> Upload:
        """Stores a file: a path, bytes, or a binary file object (sent once, never retried)."""
        body, name, size, once = _body_of(source, filename)
        headers = {"Content-Type": content_type or "application/octet-stream"}
        if size is not None:
            headers["Content-Length"] = str(size)
        d = self._k._json("POST", "/uploads", query={"filename": name}, body=body, headers=headers, once=once)["data"]
        return Upload(d["id"], d["filename"], int(d["size"]), d.get("contentType", ""), d["downloadUrl"], int(d.get("expiresAt", 0)))


class Assets:
    """Assets: /assets (images, fonts, PSD templates, captions)."""

    def __init__(self, k: Kino) -> None:
        self._k = k

    def upload(
        self,
        source: Union[str, "os.PathLike[str]", bytes],
        *,
        type: str,
        name: Optional[str] = None,
        category: Optional[str] = None,
        scope: Optional[str] = None,
        filename: Optional[str] = None,
    ) -> t.Asset:
        """Uploads an asset as multipart/form-data; type is image, psd_template, font or captions."""
        if isinstance(source, bytes):
            data, fname = source, filename or "upload"
        else:
            p = Path(source)
            data, fname = p.read_bytes(), filename or p.name
        boundary = "kino-" + uuid.uuid4().hex
        parts: List[bytes] = []
        for k, v in (("type", type), ("name", name), ("category", category), ("scope", scope)):
            if v:
                parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
        # kino reads the fields before the file, so the file is last.
        quoted = fname.replace('"', "%22")
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{quoted}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n"
        )
        parts.append(f"--{boundary}--\r\n".encode())
        payload = b"".join(parts)
        headers = {"Content-Type": "multipart/form-data; boundary=" + boundary}
        return cast(t.Asset, self._k._json("POST", "/assets", body=lambda: payload, headers=headers)["data"])

    def get(self, asset_id: str) -> t.Asset:
        """An asset's record."""
        return cast(t.Asset, self._k._json("GET", "/assets/" + _q(asset_id))["data"])

    def list(self, type: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> t.ListAssetsResponse:
        """The organisation's assets (and the system's): {data, meta}."""
        return cast(t.ListAssetsResponse, self._k._json("GET", "/assets", query={"type": type, "limit": limit, "offset": offset}))

    def delete(self, asset_id: str) -> None:
        """Deletes an asset."""
        self._k._json("DELETE", "/assets/" + _q(asset_id))


class Templates:
    """Render templates: /api/templates, compositions with {{NAME}} placeholders."""

    def __init__(self, k: Kino) -> None:
        self._k = k

    def create(self, request: t.CreateTemplateRequest) -> t.Template:
        """Stores a template."""
        return cast(t.Template, self._k._json("POST", "/api/templates", json_body=request))

    def get(self, template_id: str) -> t.Template:
        """A template."""
        return cast(t.Template, self._k._json("GET", "/api/templates/" + _q(template_id)))

    def list(self, limit: Optional[int] = None, offset: Optional[int] = None) -> t.RenderV1ListTemplatesResponse:
        """The organisation's templates, newest first."""
        q = {"limit": limit, "offset": offset}
        return cast(t.RenderV1ListTemplatesResponse, self._k._json("GET", "/api/templates", query=q))

    def delete(self, template_id: str) -> None:
        """Deletes a template; renders made from it are kept."""
        self._k._json("DELETE", "/api/templates/" + _q(template_id))


class Pipelines:
    """Pipelines and their runs: /pipelines."""

    def __init__(self, k: Kino) -> None:
        self._k = k

    def create(self, request: t.CreatePipelineRequest) -> t.Pipeline:
        """Stores a pipeline."""
        return cast(t.Pipeline, self._k._json("POST", "/pipelines", json_body=request)["data"])

    def get(self, pipeline_id: str) -> t.Pipeline:
        """A pipeline."""
        return cast(t.Pipeline, self._k._json("GET", "/pipelines/" + _q(pipeline_id))["data"])

    def list(self, limit: Optional[int] = None, offset: Optional[int] = None) -> t.ListPipelinesResponse:
        """The organisation's pipelines."""
        return cast(t.ListPipelinesResponse, self._k._json("GET", "/pipelines", query={"limit": limit, "offset": offset}))

    def run(
        self, pipeline_id: str, inputs: Mapping[str, Any], *, webhook: Optional[str] = None, idempotency_key: Optional[str] = None
    ) -> t.PipelineRun:
        """Runs a pipeline: inputs are an object per first node's id."""
        body: Dict[str, Any] = {"inputs": dict(inputs)}
        if webhook:
            body["webhook"] = webhook
        path = "/pipelines/" + _q(pipeline_id) + "/runs"
        return cast(t.PipelineRun, self._k._json("POST", path, json_body=body, submit=True, idempotency_key=idempotency_key)["data"])

    def get_run(self, pipeline_id: str, run_id: str) -> t.PipelineRun:
        """A run, with each node's job."""
        return cast(t.PipelineRun, self._k._json("GET", f"/pipelines/{_q(pipeline_id)}/runs/{_q(run_id)}")["data"])

    def list_runs(self, pipeline_id: str, limit: Optional[int] = None, offset: Optional[int] = None) -> t.ListPipelineRunsResponse:
        """A pipeline's runs, newest first."""
        q = {"limit": limit, "offset": offset}
        return cast(t.ListPipelineRunsResponse, self._k._json("GET", f"/pipelines/{_q(pipeline_id)}/runs", query=q))

    def cancel_run(self, pipeline_id: str, run_id: str) -> t.PipelineRun:
        """Cancels a run's jobs that have not ended."""
        return cast(t.PipelineRun, self._k._json("POST", f"/pipelines/{_q(pipeline_id)}/runs/{_q(run_id)}/cancel")["data"])

    def run_events(self, pipeline_id: str, run_id: str, *, timeout: Optional[float] = None) -> Iterator[t.PipelineRun]:
        """The run at once, then at every change, until it ends (SSE)."""
        return cast(Iterator[t.PipelineRun], self._k._events(f"/pipelines/{_q(pipeline_id)}/runs/{_q(run_id)}/events", timeout))

    def wait_run(
        self,
        pipeline_id: str,
        run_id: str,
        on_progress: Optional[Callable[[t.PipelineRun], None]] = None,
        *,
        stream_timeout: float = 300.0,
    ) -> t.PipelineRun:
        """Waits for the run to end and returns it."""
        path = f"/pipelines/{_q(pipeline_id)}/runs/{_q(run_id)}/events"
        return self._k._wait(path, RUN_DONE, lambda: self.get_run(pipeline_id, run_id), on_progress, stream_timeout)


def sse(stream: IO[bytes]) -> Iterator[ServerEvent]:
    """Parses a Server-Sent Events stream: event and data fields, a blank line ending each event."""
    event, data = "", cast(List[str], [])
    while True:
        raw = stream.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield ServerEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)


def _read_error(e: urllib.error.HTTPError) -> KinoError:
    retry_after: Optional[float] = None
    ra = e.headers.get("Retry-After") if e.headers else None
    if ra is not None:
        try:
            retry_after = float(ra)
        except ValueError:
            retry_after = None
    text = b""
    try:
        text = e.read()
    except OSError:
        pass
    try:
        env = json.loads(text)["error"]
        return KinoError(env["code"], env.get("message", ""), e.code, retry_after, env.get("details"))
    except (ValueError, KeyError, TypeError):
        # Not kino's envelope (a proxy's page): the status says what it can.
        return KinoError(f"HTTP_{e.code}", text[:200].decode("utf-8", "replace") or str(e.reason), e.code, retry_after)


def _body_of(source: Source, filename: Optional[str]) -> tuple[Callable[[], Any], str, Optional[int], bool]:
    """The body of an upload: a maker of it for each attempt, its name, its size, whether it can be sent only once."""
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        size = p.stat().st_size
        # Opened again for each attempt, and streamed, not read into memory.
        return (lambda: p.open("rb")), filename or p.name, size, False
    if isinstance(source, bytes):
        return (lambda: source), filename or "upload", len(source), False
    name = filename or Path(getattr(source, "name", "upload") or "upload").name
    return (lambda: source), name, None, True


def _q(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _backoff(attempt: int) -> float:
    return float(min(8.0, 0.5 * 2**attempt) + random.random() * 0.25)
