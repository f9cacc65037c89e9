"""Headless Chromium (the Debian package) driven over the DevTools protocol on a pipe: open a page, run script in
it, read the text of its frames. No WebDriver, no websocket library: Chromium reads commands from fd 3 and writes
replies to fd 4, each a JSON message ended by a NUL byte."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, binary: str, profile_dir):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        def fds_3_and_4():  # in the child: the pipe ends as fds 3 and 4 (copied aside first: they may be 3 or 4)
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # pass_fds keeps 3 and 4 open across exec (both exist here: the pipes took the lowest free numbers)
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={profile_dir}", "--window-size=1400,900", "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds_3_and_4, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        page = next(t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def send(self, method: str, session: str | None = None, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def page(self, method: str, **params) -> dict:
        return self.send(method, session=self.session, **params)

    def open(self, url: str) -> None:
        self.page("Page.enable")
        self.page("Page.navigate", url=url)

    def evaluate(self, expression: str, context: int | None = None):
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        if context is not None:
            params["contextId"] = context
        result = self.page("Runtime.evaluate", **params)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30, context: int | None = None):
        """Poll a script until it returns something truthy; return that."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                value = self.evaluate(expression, context)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(0.2)
        raise TimeoutError(expression)

    def frame_texts(self) -> dict[str, str]:
        """url -> visible text of every child frame once it has loaded ('' before: a large page parses in steps, and
        text read mid-parse lacks its last rows); the browser sees into cross-origin frames, a page cannot."""
        tree = self.page("Page.getFrameTree")["frameTree"]
        texts = {}
        for child in tree.get("childFrames", []):
            frame = child["frame"]
            world = self.page("Page.createIsolatedWorld", frameId=frame["id"])["executionContextId"]
            texts[frame["url"]] = self.evaluate(
                "document.readyState === 'complete' && document.body ? document.body.innerText : ''", world)
        return texts

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._to_browser)
        os.close(self._from_browser)
