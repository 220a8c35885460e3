"""Log lines written by a thread of their own (storefront/observability/log_handlers.py, as gunicorn.conf.py sets it up
in each web worker): all of them, in order, once each, with the handler's own format, by the end of the process."""

import json
import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = """
import logging, logging.config, sys, threading
from storefront.observability.log_handlers import QueuedLinesHandler, write_lines_from_a_thread
logging.config.dictConfig({
    "version": 1,
    "formatters": {"json": {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": "%(levelname)s %(name)s %(message)s"}},
    "handlers": {"stdout": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout",
                            "level": "INFO"}},
    "root": {"handlers": ["stdout"], "level": "DEBUG"},
})
write_lines_from_a_thread()
assert [type(handler) for handler in logging.getLogger().handlers] == [QueuedLinesHandler]
log = logging.getLogger("check")
writers = [threading.Thread(target=lambda n=n: [log.info("line", extra={"writer": n, "i": i}) for i in range(200)])
           for n in range(8)]
for writer in writers:
    writer.start()
for writer in writers:
    writer.join()
log.debug("below the handler's level")
log.info("with stack", stack_info=True)
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
    assert "below the handler's level" not in done.stdout
    stacked = [record for record in records if record["message"] == "with stack"]
    assert len(stacked) == 1 and "Stack (most recent call last)" in stacked[0]["stack_info"]
    assert records[-1]["message"] == "last"
