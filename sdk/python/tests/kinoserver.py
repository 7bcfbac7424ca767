"""Starts a real kino for the tests: `kino serve` on free ports of 127.0.0.1
with a fresh data folder and an API key. KINO_BIN names a built binary;
without it, ./cmd/kino is built once into a temp folder."""

from __future__ import annotations

import atexit
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

REPO = Path(__file__).resolve().parents[3]
API_KEY = "sdk-test-key-0123456789"
_built: Optional[str] = None


def kino_bin() -> str:
    global _built
    if os.environ.get("KINO_BIN"):
        return os.environ["KINO_BIN"]
    if _built is None:
        d = tempfile.mkdtemp(prefix="kino-sdk-bin-")
        atexit.register(shutil.rmtree, d, True)
        _built = os.path.join(d, "kino")
        subprocess.run(["go", "build", "-o", _built, "./cmd/kino"], cwd=REPO, check=True)
    return _built


@dataclass
class KinoServer:
    base_url: str
    grpc_addr: str
    api_key: str
    proc: subprocess.Popen[bytes]
    data_dir: str
    logs: List[str] = field(default_factory=list)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)


def start_kino(*extra: str) -> KinoServer:
    """Starts kino and returns once it serves; extra are more flags of kino serve."""
    data_dir = tempfile.mkdtemp(prefix="kino-sdk-data-")
    args = [kino_bin(), "serve", "--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--data-dir", data_dir,
            "--log-format", "json", "--workers", "2", "--api-keys", f"{API_KEY}=sdk", *extra]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    logs: List[str] = []
    ready: "queue.Queue[Optional[dict]]" = queue.Queue()

    def read() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            logs.append(line)
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("msg") == "kino serving":
                ready.put(m)
        ready.put(None)

    threading.Thread(target=read, daemon=True).start()
    m = ready.get(timeout=60)
    if m is None:
        shutil.rmtree(data_dir, ignore_errors=True)
        raise RuntimeError("kino exited before serving:\n" + "\n".join(logs))
    return KinoServer(f"http://{m['http']}", m["grpc"], API_KEY, proc, data_dir, logs)
