"""A worker process: a fresh interpreter running `python -m MODULE FD`, talking over a
socket pair whose other end is FD.

Not a fork: the process starting it runs Chroma's threads, and a fork copies whatever locks
they hold. Not multiprocessing's spawn: that re-imports the caller's script, which may be a
user's script that ingests again. The mbox parse workers (parse_pool.py) and the index
build's text-analysis workers (query/chunk_analysis.py) start this way; each module serves
its connection when run as `__main__`.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from multiprocessing.connection import Connection

STOP_SECONDS = 5.0   # how long a worker told to finish may take before it is killed


def start(module: str) -> tuple[subprocess.Popen, Connection]:
    """The started worker running `module`, and the connection to it."""
    ours, theirs = socket.socketpair()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        with theirs:
            process = subprocess.Popen([sys.executable, "-m", module, str(theirs.fileno())],
                                       pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=env)
    except BaseException:
        ours.close()
        raise
    return process, Connection(ours.detach())


def stop(process: subprocess.Popen, conn: Connection, kill: bool = False) -> None:
    """Tell the worker it is done (None on its connection) and wait for it a few seconds,
    then kill it if it is still there; at once with `kill`."""
    if not kill:
        try:
            conn.send(None)
            process.wait(timeout=STOP_SECONDS)
        except (OSError, subprocess.TimeoutExpired):
            pass
    if process.poll() is None:
        process.kill()
        process.wait()
    conn.close()
