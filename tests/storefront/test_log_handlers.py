"""The log handler (storefront/log_handlers.py): lines written by a thread of their own, all of them, in order,
once each, also from a forked process and at exit."""

import json
import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = """
import logging, logging.config, os, sys, threading
logging.config.dictConfig({
    "version": 1,
    "formatters": {"json": {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": "%(levelname)s %(name)s %(message)s"}},
    "handlers": {"stdout": {"class": "storefront.log_handlers.QueuedStdoutHandler", "formatter": "json"}},
    "root": {"handlers": ["stdout"], "level": "INFO"},
})
log = logging.getLogger("check")
writers = [threading.Thread(target=lambda n=n: [log.info("line", extra={"writer": n, "i": i}) for i in range(200)])
           for n in range(8)]
for writer in writers:
    writer.start()
for writer in writers:
    writer.join()
log.info("with stack", stack_info=True)
if os.fork() == 0:
    log.info("from the child")
    sys.exit(0)
os.wait()
log.info("last")
"""


def test_every_line_is_written_once_in_order_by_the_end_of_the_process():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    lines = [record for record in records if record["message"] == "line"]
    assert len(lines) == 8 * 200
    for writer in range(8):
        assert [record["i"] for record in lines if record["writer"] == writer] == list(range(200))
    stacked = [record for record in records if record["message"] == "with stack"]
    assert len(stacked) == 1 and "Stack (most recent call last)" in stacked[0]["stack_info"]
    # The child's line, once, by the child's own writing thread (the parent's unwritten lines are not copied),
    # before its exit and so before the parent's last line.
    assert [record["message"] for record in records].count("from the child") == 1
    assert records[-1]["message"] == "last"
