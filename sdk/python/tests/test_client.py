"""The client against a real kino: renders, previews, media jobs, uploads,
a 429 with Retry-After, cancellation, typed errors, fresh types."""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from kino import Kino, KinoError  # noqa: E402
from kinoserver import KinoServer, start_kino  # noqa: E402

server: KinoServer


def setUpModule() -> None:
    global server
    server = start_kino()


def tearDownModule() -> None:
    server.stop()


def demo_render(base: str, seconds: float = 2) -> Dict[str, Any]:
    return {
        "provider": "provider_a",
        "assetUrls": {"picture": f"{base}/demo/picture1.jpg", "logo": f"{base}/demo/logo.png"},
        "composition": {
            "width": 320, "height": 180, "fps": 25, "background": "#102030",
            "layers": [
                {"type": "image", "src": "picture", "x": 0, "y": 0, "width": 320, "height": 180, "start": 0, "duration": seconds,
                 "kenBurns": "zoomIn"},
                {"type": "image", "src": "logo", "x": 270, "y": 10, "width": 40, "height": 40, "start": 0, "duration": seconds},
                {"type": "text", "text": "kino SDK", "fontSize": 24, "color": "#ffffff", "x": "center", "y": "center",
                 "start": 0, "duration": seconds},
            ],
        },
    }


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        return bytes(r.read())


class ClientTest(unittest.TestCase):
    kino: Kino
    base: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.kino = Kino(server.base_url, api_key=server.api_key)
        cls.base = server.base_url

    def test_render_waited_with_progress(self) -> None:
        sub = self.kino.renders.submit(demo_render(self.base, 4))
        self.assertEqual(sub["status"], "queued")
        seen: List[Dict[str, Any]] = []
        done = self.kino.renders.wait(sub["jobId"], on_progress=lambda r: seen.append(dict(r)))
        self.assertEqual(done["status"], "completed", done)
        self.assertEqual(done["progress"], 100)
        self.assertGreaterEqual(len(seen), 2, [r["status"] for r in seen])
        self.assertEqual(seen[-1]["status"], "completed")
        for a, b in zip(seen, seen[1:]):
            self.assertGreaterEqual(b["progress"], a["progress"])

        rec = self.kino.renders.get(sub["jobId"])
        self.assertEqual(rec["status"], "completed")
        self.assertRegex(rec["outputUrl"], r"\.mp4(\?|$)")
        self.assertGreater(len(fetch(rec["outputUrl"])), 1000)
        self.assertEqual([r["status"] for r in self.kino.renders.events(sub["jobId"])], ["completed"])
        page = self.kino.renders.list(status="completed", limit=10)
        self.assertIn(sub["jobId"], [r["jobId"] for r in page["data"]])
        self.assertEqual(self.kino.renders.request(sub["jobId"])["composition"]["width"], 320)

    def test_preview(self) -> None:
        p = self.kino.renders.preview(demo_render(self.base), time=1, width=160)
        self.assertEqual(p.content_type, "image/jpeg")
        self.assertEqual(p.data[:3], b"\xff\xd8\xff")
        png = self.kino.renders.preview(demo_render(self.base), time=0.5, format="png")
        self.assertEqual(png.content_type, "image/png")
        self.assertEqual(png.data[1:4], b"PNG")

    def test_media_job(self) -> None:
        self.assertIn("image.resize", [t["type"] for t in self.kino.jobs.types()])
        job = self.kino.jobs.create({"type": "image.resize", "inputs": {"source": f"{self.base}/demo/picture1.jpg"}, "params": {"width": 160}})
        seen: List[str] = []
        done = self.kino.jobs.wait(job["id"], on_progress=lambda j: seen.append(j["status"]))
        self.assertEqual(done["status"], "complete", done)
        self.assertEqual(seen[-1], "complete")
        self.assertTrue(fetch(done["outputUrl"]))
        self.assertEqual(self.kino.jobs.get(job["id"])["status"], "complete")
        self.assertIn(job["id"], [j["id"] for j in self.kino.jobs.list(type="image.resize")["data"]])

    def test_uploads(self) -> None:
        logo = fetch(f"{self.base}/demo/logo.png")
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "logo.png"
            path.write_bytes(logo)
            up = self.kino.uploads.create(path)
            self.assertEqual(up.filename, "logo.png")
            self.assertEqual(up.size, len(logo))
            self.assertRegex(up.download_url, r"^http://127\.0\.0\.1:\d+/files/uploads/")
            self.assertEqual(self.kino.uploads.create(logo, filename="bytes.png").size, len(logo))
            streamed = self.kino.uploads.create(io.BytesIO(logo), filename="stream.png")
            self.assertEqual(streamed.size, len(logo))
            job = self.kino.jobs.create({"type": "image.resize", "inputs": {"source": streamed.download_url}, "params": {"width": 80}})
            self.assertEqual(self.kino.jobs.wait(job["id"])["status"], "complete")

            asset = self.kino.assets.upload(path, type="image", name="logo")
            self.assertEqual(asset["type"], "image")
            self.assertEqual(self.kino.assets.get(asset["id"])["id"], asset["id"])
            self.assertIn(asset["id"], [a["id"] for a in self.kino.assets.list(type="image")["data"]])
            self.kino.assets.delete(asset["id"])

    def test_cancel(self) -> None:
        sub = self.kino.renders.submit(demo_render(self.base, 30))
        self.assertEqual(self.kino.renders.cancel(sub["jobId"])["status"], "cancelled")
        self.assertEqual(self.kino.renders.wait(sub["jobId"])["status"], "cancelled")
        with self.assertRaises(KinoError) as cm:
            self.kino.renders.cancel(sub["jobId"])
        self.assertEqual((cm.exception.status, cm.exception.code), (400, "JOB_NOT_CANCELLABLE"))

        job = self.kino.jobs.create({"type": "video.transcode", "inputs": {"source": f"{self.base}/demo/talk.mp4"}, "params": {"preset": "webm"}})
        self.assertEqual(self.kino.jobs.cancel(job["id"])["status"], "cancelled")
        self.assertEqual(self.kino.jobs.wait(job["id"])["status"], "cancelled")

    def test_errors(self) -> None:
        with self.assertRaises(KinoError) as cm:
            self.kino.renders.get("0199a1b2-0000-7000-8000-000000000000")
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "JOB_NOT_FOUND"))
        with self.assertRaises(KinoError) as cm:
            self.kino.renders.submit({"provider": "provider_a", "composition": {"width": 0}})
        self.assertEqual((cm.exception.status, cm.exception.code), (400, "VALIDATION_ERROR"))
        self.assertTrue(cm.exception.message)
        with self.assertRaises(KinoError) as cm:
            Kino(self.base).jobs.list()
        self.assertEqual((cm.exception.status, cm.exception.code), (401, "UNAUTHENTICATED"))

    def test_templates_pipelines_usage(self) -> None:
        t = self.kino.templates.create({
            "name": "card", "provider": "unified",
            "composition": {"output": {"width": 320, "height": 180, "fps": 25, "duration": 1},
                            "tracks": [{"clips": [{"asset": {"type": "text", "text": "Hi {{NAME}}", "fontSize": 24}, "start": 0, "length": 1}]}]},
        })
        self.assertEqual(t["placeholders"], ["NAME"])
        self.assertEqual(self.kino.templates.get(t["id"])["id"], t["id"])
        self.assertIn(t["id"], [x["id"] for x in self.kino.templates.list()["templates"]])
        sub = self.kino.renders.submit({"template": t["id"], "merge": {"NAME": "Ada"}})
        self.assertEqual(self.kino.renders.wait(sub["jobId"])["status"], "completed")
        self.kino.templates.delete(t["id"])

        p = self.kino.pipelines.create({
            "name": "resize twice",
            "nodes": [{"id": "a", "jobType": "image.resize", "params": {"width": 200}},
                      {"id": "b", "jobType": "image.resize", "params": {"width": 100}}],
            "edges": [{"from": "a", "to": "b", "outputMapping": {"sourceField": "outputUrl", "targetField": "source"}}],
        })
        run = self.kino.pipelines.run(p["id"], {"a": {"source": f"{self.base}/demo/picture2.jpg"}})
        ended = self.kino.pipelines.wait_run(p["id"], run["id"])
        self.assertTrue(ended["status"].startswith("complete"), ended)
        self.assertIn(run["id"], [r["id"] for r in self.kino.pipelines.list_runs(p["id"])["data"]])
        self.assertIn(p["id"], [x["id"] for x in self.kino.pipelines.list()["data"]])
        self.assertIsInstance(self.kino.usage()["data"], list)
        self.assertEqual(self.kino.org()["org"]["id"], "sdk")


class RateLimitTest(unittest.TestCase):
    def test_429_with_retry_after(self) -> None:
        limited = start_kino("--org-rate", "1")
        try:
            body = {"type": "image.resize", "inputs": {"source": f"{limited.base_url}/demo/picture1.jpg"}, "params": {"width": 64}}
            no_retry = Kino(limited.base_url, api_key=limited.api_key, max_retries=0)
            err = None
            for _ in range(5):
                try:
                    no_retry.jobs.create(body)
                except KinoError as e:
                    err = e
                    break
            self.assertIsNotNone(err, "a burst past --org-rate is refused")
            assert err is not None
            self.assertEqual((err.status, err.code), (429, "RATE_LIMITED"))
            self.assertIsNotNone(err.retry_after)
            self.assertGreaterEqual(err.retry_after or 0, 1)

            retrying = Kino(limited.base_url, api_key=limited.api_key)
            # Every answer kino gave, counted where the client opens URLs.
            opened: List[int] = []
            real = urllib.request.urlopen

            def urlopen(req: Any, *a: Any, **kw: Any) -> Any:
                try:
                    res = real(req, *a, **kw)
                except urllib.error.HTTPError as e:
                    opened.append(e.code)
                    raise
                opened.append(res.status)
                return res

            urllib.request.urlopen = urlopen  # type: ignore[assignment]
            try:
                for _ in range(3):
                    retrying.jobs.create(body)
            finally:
                urllib.request.urlopen = real
            self.assertIn(429, opened, opened)
            self.assertEqual(len([s for s in opened if s < 300]), 3, opened)
        finally:
            limited.stop()


class GeneratedTypesTest(unittest.TestCase):
    def test_types_are_fresh(self) -> None:
        r = subprocess.run([sys.executable, str(HERE.parent / "gen_types.py"), "--check"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
