"""A minimal Chrome DevTools Protocol driver for headless Chromium (Debian's package).

Launches Chromium with the flags this closed network needs, opens a page, waits until a text
appears, and captures a PNG. Used by the UI test; no browser is downloaded.
"""

import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from websockets.sync.client import connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1600,1000",
    "--remote-debugging-port=0",
)


class Chromium:
    """One headless Chromium process with one page, driven over CDP."""

    def __init__(self) -> None:
        if CHROMIUM is None:
            raise RuntimeError("chromium is not installed (apt-get install chromium)")
        self._profile = tempfile.mkdtemp(prefix="chromium-profile-")
        self._proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port = self._wait_for_port()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as reply:
            pages = [t for t in json.load(reply) if t.get("type") == "page"]
        self._ws = connect(pages[0]["webSocketDebuggerUrl"], max_size=None)
        self._ids = itertools.count(1)
        self.call("Page.enable")

    def _wait_for_port(self) -> int:
        marker = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if marker.exists() and marker.read_text().strip():
                return int(marker.read_text().splitlines()[0])
            time.sleep(0.1)
        raise RuntimeError("chromium did not open its DevTools port in 30 s")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one CDP command and return its result (events in between are skipped)."""
        message_id = next(self._ids)
        self._ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self._ws.recv(timeout=60))
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))

    def goto(self, url: str, *, wait_for_text: str, timeout_s: float = 60) -> str:
        """Navigate and wait until the page's text contains ``wait_for_text``; return the text."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout_s
        text = ""
        while time.monotonic() < deadline:
            result = self.call(
                "Runtime.evaluate",
                expression="document.body ? document.body.innerText : ''",
                returnByValue=True,
            )
            text = str(result.get("result", {}).get("value", ""))
            if wait_for_text in text:
                time.sleep(1.5)  # let the graph finish laying out before the capture
                return text
            time.sleep(0.5)
        raise TimeoutError(f"{url}: {wait_for_text!r} did not appear; page text: {text[:500]!r}")

    def text(self) -> str:
        """The page's visible text."""
        result = self.call(
            "Runtime.evaluate", expression="document.body.innerText", returnByValue=True
        )
        return str(result.get("result", {}).get("value", ""))

    def click_text(
        self,
        text: str,
        *,
        wait_for_text: str,
        timeout_s: float = 30,
        selector: str = "a,button,div,span",
        last: bool = False,
    ) -> str:
        """Click the first (``last``: the last) ``selector`` element whose text is ``text``.

        Then wait until the page shows ``wait_for_text`` and return the page's text.
        """
        pick = "hits[hits.length - 1]" if last else "hits[0]"
        found = self.call(
            "Runtime.evaluate",
            expression=(
                f"(() => {{ const hits = [...document.querySelectorAll({json.dumps(selector)})]"
                f".filter(e => e.textContent.trim() === {json.dumps(text)}); const hit = {pick};"
                " if (hit) { hit.click(); return true; } return false; })()"
            ),
            returnByValue=True,
        )
        if not found.get("result", {}).get("value"):
            raise LookupError(f"no element with text {text!r}")
        deadline = time.monotonic() + timeout_s
        page = ""
        while time.monotonic() < deadline:
            result = self.call(
                "Runtime.evaluate", expression="document.body.innerText", returnByValue=True
            )
            page = str(result.get("result", {}).get("value", ""))
            if wait_for_text in page:
                time.sleep(1.0)
                return page
            time.sleep(0.3)
        raise TimeoutError(f"after clicking {text!r}: {wait_for_text!r} did not appear")

    def screenshot(self, path: Path) -> Path:
        """Save a PNG of the viewport."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """Stop the browser and remove its profile."""
        try:
            self._ws.close()
        finally:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
