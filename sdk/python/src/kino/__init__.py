"""kino's Python client: renders, media jobs, uploads, assets, templates,
pipelines and usage over kino's REST API, with the standard library only.

    from kino import Kino
    kino = Kino("http://127.0.0.1:8080", api_key="...")
    job = kino.renders.submit({...})
    done = kino.renders.wait(job["jobId"], on_progress=print)
"""

from . import types
from .client import Kino, KinoError, Preview, ServerEvent, Upload, sse

__all__ = ["Kino", "KinoError", "Preview", "ServerEvent", "Upload", "sse", "types"]
__version__ = "0.1.0"
