"""Builds the wheel, installs it into an empty folder, and runs the README's
example there against a kino started for it: what a user gets from the
wheel works as the README says.

The wheel is built by pip with setuptools and wheel from the system
(Debian's python3-setuptools and python3-wheel): no build isolation, no
network.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tests"))

from kinoserver import start_kino  # noqa: E402


def main() -> int:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    m = re.search(r"## Example.*?```python\n(.*?)```", readme, re.S)
    if not m:
        raise SystemExit("README.md has no ```python block under ## Example")
    tmp = Path(tempfile.mkdtemp(prefix="kino-sdk-wheel-"))
    kino = start_kino()
    try:
        # Built from a copy, so that the build's folders stay out of the tree.
        src = tmp / "src"
        shutil.copytree(HERE, src, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
        wheels = tmp / "wheels"
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
        subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(src)], check=True)
        wheel = next(wheels.glob("kino_client-*.whl"))
        app = tmp / "app"
        app.mkdir()
        subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(app / "site"), str(wheel)], check=True)
        (app / "example.py").write_text(m.group(1), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(app / "site"), "KINO_URL": kino.base_url, "KINO_API_KEY": kino.api_key}
        out = subprocess.run([sys.executable, "example.py"], cwd=app, env=env, capture_output=True, text=True)
        sys.stdout.write(out.stdout)
        if out.returncode != 0:
            raise SystemExit("the README example failed:\n" + out.stderr)
        for want in (r"^render: completed http", r"^job: complete http", r"^error: 404 JOB_NOT_FOUND$"):
            if not re.search(want, out.stdout, re.M):
                raise SystemExit(f"the README example did not print {want}")
        if (app / "frame.jpg").read_bytes()[:2] != b"\xff\xd8":
            raise SystemExit("frame.jpg is not a JPEG")
        print(f"pack_check: {wheel.name} runs its README example")
        return 0
    finally:
        kino.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
