"""`balance workbench`: the designer's loop in the browser (sim/workbench): a local web app on a workspace
folder, at an address with a secret token in it, until Ctrl-C."""

from __future__ import annotations

import argparse
import secrets
import socket

import uvicorn

from sim.commands.options import check_jobs, examples, positive_int
from sim.core.errors import ConfigError
from sim.workbench.server import Settings, make_app
from sim.workbench.workspace import Workspace

PARSER = examples("balance workbench", "balance workbench --workspace my-game --port 8800",
                  "balance workbench --jobs 8 --scheduler tcp://10.0.0.5:8786")
#: Ctrl-C is the server's own to handle (uvicorn stops the runs, then returns): no 2 s watch (interrupt.py)
OWN_CTRL_C = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", default="workbench",
                        help="the folder of drafts, runs and reports (default ./workbench, created if "
                             "missing)")
    parser.add_argument("--port", type=int, default=8765,
                        help="port to serve on (default 8765; 0: any free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--jobs", type=positive_int, help="worker processes of each run (default: the cores)")
    parser.add_argument("--scheduler", help="play runs on the Dask cluster at this address, as simulate does")


def _socket(host: str, port: int) -> socket.socket:
    try:
        sock = socket.create_server((host, port), reuse_port=False)
    except OSError as err:
        if isinstance(err, socket.gaierror) or (err.errno or 0) < 0:  # the resolver's: no such host
            raise ConfigError(f"--host: {host!r} is no address of this machine ({err.strerror})") from None
        raise ConfigError(f"--port: cannot serve on {host}:{port} ({err.strerror or err})") from None
    except (UnicodeError, ValueError) as err:  # a host name no resolver takes
        raise ConfigError(f"--host: {host!r} is not an address to serve on ({err})") from None
    return sock


def run(args: argparse.Namespace) -> int:


    check_jobs(args.jobs, args.scheduler)
    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port: must be in 0..65535, got {args.port}")
    if not args.host.strip():
        raise ConfigError("--host: empty; give the address to serve on, e.g. 127.0.0.1 (this machine "
                          "only) or 0.0.0.0 (every interface, said outright)")
    if not args.workspace.strip():
        raise ConfigError("--workspace: empty; give the folder of drafts and runs, e.g. --workspace "
                          "workbench")
    sock = _socket(args.host, args.port)  # before the workspace is made: a refused address creates nothing
    try:
        workspace = Workspace(args.workspace)
    except OSError as err:
        sock.close()
        raise ConfigError(f"--workspace: {args.workspace}: cannot make the folder ({err.strerror or err})") \
            from None
    token = secrets.token_urlsafe(24)
    app = make_app(Settings(workspace, token, args.jobs, args.scheduler))
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"workbench on {workspace.root}\nopen http://{shown}:{port}/?token={token}\n(Ctrl-C stops it; "
          "running games stop too and resume when run again)", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shut down (stopping the runs), then passed Ctrl-C on
        pass
    print("workbench stopped", flush=True)
    return 0
