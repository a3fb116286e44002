"""Start/stop a throw-away JupyterLab server for browser tests (no display, loopback only).

From ../shared/recipes/browser-harness.md, which ran green on this machine: isolated Jupyter dirs,
the news toast switched off, shutdown through the REST API and leftover kernels signalled by PID.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    def __init__(self, root: Path, home: Path) -> None:
        self.root, self.home = Path(root), Path(home)
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90) -> LabServer:
        settings = self.home / "user-settings"
        # silence the "fetch Jupyter news?" toast and update checks (they would cover widgets /
        # hit the network)
        notif = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
        notif.parent.mkdir(parents=True, exist_ok=True)
        notif.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        env = dict(
            os.environ,
            JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
            JUPYTER_CONFIG_DIR=str(self.home / "config"),  # isolate from ~/.jupyter
            JUPYTER_DATA_DIR=str(self.home / "data"),  # venv kernelspecs still found
            IPYTHONDIR=str(self.home / "ipython"),
        )
        cmd = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            "--allow-root",
            f"--ServerApp.root_dir={self.root}",
            f"--LabApp.user_settings_dir={settings}",
            f"--LabApp.workspaces_dir={self.home / 'workspaces'}",
            "--LabApp.check_for_updates_class="
            "jupyterlab.handlers.announcements.NeverCheckForUpdate",
            "--ServerApp.terminals_enabled=False",
        ]
        self.log = open(self.home / "lab.log", "w")  # noqa: SIM115 - closed in stop()
        self.t0 = time.perf_counter()
        # own process group for the server (kernels get their own sessions from jupyter_client)
        self.proc = subprocess.Popen(
            cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    "jupyter lab exited: " + (self.home / "lab.log").read_text()[-3000:]
                )
            try:
                with urllib.request.urlopen(
                    f"{self.url}/api/status?token={self.token}", timeout=2
                ) as r:
                    if r.status == 200:
                        self.startup_s = time.perf_counter() - self.t0
                        return self
            except OSError:
                time.sleep(0.2)
        raise TimeoutError("jupyter lab did not answer in time")

    def lab_url(self, path: str) -> str:
        # ?reset: ignore any saved workspace layout
        return f"{self.url}/lab/tree/{path}?reset&token={self.token}"

    def _api(self, path: str, method: str = "GET"):
        req = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None

    def delete_sessions(self) -> None:
        for s in self._api("/api/sessions"):
            self._api(f"/api/sessions/{s['id']}", "DELETE")

    @staticmethod
    def _stat(pid: int | str) -> tuple[int, str] | None:
        """(ppid, starttime) of a PID from /proc, or None if gone."""
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return int(f[1]), f[19]  # fields 4 (ppid) and 22 (starttime)

    def _children(self) -> list[tuple[int, str]]:
        kids = []
        for d in Path("/proc").glob("[0-9]*"):
            st = self._stat(d.name)
            if st and st[0] == self.proc.pid:
                kids.append((int(d.name), st[1]))
        return kids

    def stop(self) -> None:
        """Graceful: POST /api/shutdown (also shuts the kernels, which jupyter_client starts
        in their *own* session, so killpg on the server would miss them). Then signals by PID."""
        if not self.proc or self.proc.poll() is not None:
            return
        kids = self._children()
        t = time.perf_counter()
        try:
            req = urllib.request.Request(
                f"{self.url}/api/shutdown",
                method="POST",
                headers={"Authorization": f"token {self.token}"},
            )
            urllib.request.urlopen(req, timeout=5).close()
        except OSError:
            pass
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        for pid, start in kids:  # leftover kernels, by PID (same process, not a reused PID)
            st = self._stat(pid)
            if st and st[1] == start:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.stop_s = time.perf_counter() - t
        self.log.close()
