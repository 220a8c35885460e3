"""Every line the storefront's web process writes is one JSON object: gunicorn's own, Django's and ours."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from tests.conftest import ROOT


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def _wait_until_up(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and server.poll() is None:
        try:
            _get(url)
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"the web process did not answer at {url}")


def test_the_web_process_writes_only_json_lines(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.set_inheritable(True)
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    # DEBUG on: that is when Django adds plain-text console handlers of its own.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "DJANGO_DEBUG": "true"}
    out, err = (tmp_path / "stdout").open("w+"), (tmp_path / "stderr").open("w+")
    # As the Procfile starts it: gunicorn finds its config (gunicorn.conf.py) in the working directory.
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "storefront.wsgi", f"--bind=fd://{listener.fileno()}", "--workers=1"],
        cwd=ROOT,
        env=env,
        pass_fds=(listener.fileno(),),
        stdout=out,
        stderr=err,
    )
    listener.close()
    try:
        _wait_until_up(f"{base}/healthz", server)
        assert _get(f"{base}/healthz") == 200
        assert _get(f"{base}/no-such-page/") == 404
    finally:
        server.terminate()
        server.wait(timeout=15)

    lines = [line for stream in (out, err) for line in (stream.seek(0), stream.read())[1].splitlines() if line]
    records = [json.loads(line) for line in lines]
    loggers = {record["logger"] for record in records}
    assert {"gunicorn.error", "storefront.requests", "django.request"} <= loggers, lines
    assert any(record["message"].startswith("Not Found") for record in records)
    requests = [record for record in records if record["logger"] == "storefront.requests"]
    assert {record["route"] for record in requests} >= {"/healthz", "(unresolved)"}
