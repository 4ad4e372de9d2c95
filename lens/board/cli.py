"""`lens board`: serve the web board for a logdir (or the bundled sample logs)."""

import argparse
import errno
import logging
import os
import socket
import sys
import threading
import time
from pathlib import Path

from werkzeug.serving import make_server

EXIT_USAGE = 2
EXIT_PORT_IN_USE = 3


def sample_logdir():
    """The bundled sample logs: lens/sample_logs in the package, else <repo>/sample_logs."""
    package_dir = Path(__file__).resolve().parent.parent
    for candidate in (package_dir / "sample_logs", package_dir.parent / "sample_logs"):
        if candidate.is_dir():
            return candidate
    return None


def parse_logdir_spec(spec):
    """'name1:DIR1,name2:DIR2' -> {name: dir}; raises ValueError naming the bad entry."""
    result = {}
    for entry in filter(None, (part.strip() for part in spec.split(","))):
        name, sep, path = entry.partition(":")
        if not sep or not name or not path:
            raise ValueError(f"--logdir_spec entry {entry!r} must look like name:DIR")
        if name in result:
            raise ValueError(f"--logdir_spec names {name!r} twice; give each run group a "
                             "different name")
        result[name] = path
    if not result:
        raise ValueError("--logdir_spec is empty; give name1:DIR1,name2:DIR2")
    return result


def parse_samples_per_plugin(spec):
    """'scalars=5000,images=all' -> {'scalars': 5000, 'images': 0} (0 = keep everything)."""
    result = {}
    for entry in filter(None, (part.strip() for part in (spec or "").split(","))):
        plugin, sep, count = entry.partition("=")
        if not sep or not plugin:
            raise ValueError(f"--samples_per_plugin entry {entry!r} must look like plugin=N")
        if count == "all":
            result[plugin] = 0
            continue
        try:
            result[plugin] = int(count)
        except ValueError:
            raise ValueError(f"--samples_per_plugin {plugin}={count!r}: use a whole number "
                             "or 'all'") from None
        if result[plugin] < 0:
            raise ValueError(f"--samples_per_plugin {plugin}={count}: must be >= 0")
    return result


def bind_error(host, port):
    """The OSError binding host:port would raise now, or None if it is free."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        # Same option as the server, so a port in TIME_WAIT counts as free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            return err
    return None


def next_free_port(host, start, attempts=100):
    """The first port after start that can be bound on host, or None."""
    for port in range(start + 1, min(start + 1 + attempts, 65536)):
        if bind_error(host, port) is None:
            return port
    return None


def port_problem(host, port):
    """A message explaining why host:port cannot be served, or None."""
    err = bind_error(host, port)
    if err is None:
        return None
    if err.errno != errno.EADDRINUSE:
        return f"cannot bind {host}:{port}: {err.strerror or err}"
    free = next_free_port(host, port)
    hint = f" Try --port {free}." if free else ""
    return (f"port {port} on {host} is already in use (another lens board or "
            f"TensorBoard?).{hint}")


def build_parser():
    """The argument parser (same flag names as TensorBoard)."""
    parser = argparse.ArgumentParser(prog="lens board",
                                     description="Serve the lens web board for a logdir.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--logdir", help="directory of runs (default: the bundled sample logs)")
    where.add_argument("--logdir_spec", help="name1:DIR1,name2:DIR2 (named run groups)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=6006, help="port (default 6006)")
    parser.add_argument("--reload_interval", type=float, default=5.0,
                        help="seconds between reads of new data; 0 reads once")
    parser.add_argument("--samples_per_plugin", default="",
                        help="e.g. scalars=5000,images=all (all/0 keeps everything)")
    parser.add_argument("--cache_dir", default=None,
                        help="where loaded runs are kept between restarts (default: "
                        "~/.cache/lens/<hash of the logdir>; '' keeps nothing on disk)")
    parser.add_argument("--max_memory_mb", type=float, default=1024,
                        help="resident memory past which scalar points move to the cache "
                        "dir (default 1024); none is ever dropped")
    return parser


def resolve_logdir(args):
    """The logdir (path or spec dict) from parsed args; raises ValueError with a fix."""
    if args.logdir_spec:
        return parse_logdir_spec(args.logdir_spec)
    if args.logdir:
        if "://" not in args.logdir and not os.path.isdir(args.logdir):
            raise ValueError(f"--logdir {args.logdir!r} is not a directory; pass the directory "
                             "that holds your runs' event files")
        return args.logdir
    bundled = sample_logdir()
    if bundled is None:
        raise ValueError("no --logdir given and the bundled sample_logs/ is missing; pass "
                         "--logdir DIR (or regenerate: python -m lens.examples.sample_logs "
                         "--logdir sample_logs)")
    return str(bundled)


def _report_loading(provider, out, stop):
    """Print one progress line while the first load runs, then a summary."""
    started = time.monotonic()
    while not stop.wait(0.5):
        try:
            p = provider.progress()
        except Exception:  # a provider without progress still serves
            return
        if p.get("done"):
            print(f"loaded {p.get('runs', 0)} runs, {p.get('events', 0)} events in "
                  f"{time.monotonic() - started:.1f} s", file=out, flush=True)
            return
        total = p.get("bytes_total") or 0
        pct = f" ({100 * p.get('bytes_read', 0) / total:.0f}%)" if total else ""
        print(f"loading: {p.get('runs', 0)} runs, {p.get('bytes_read', 0)} bytes{pct}",
              file=out, flush=True)


def main(argv=None, out=None):
    """Entry point of `lens board`; returns the process exit code."""
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        logdir = resolve_logdir(args)
        samples = parse_samples_per_plugin(args.samples_per_plugin)
    except ValueError as err:
        print(f"lens board: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    # Check the port before loading anything so a busy port fails fast (werkzeug would
    # print its own message and exit the interpreter instead).
    problem = port_problem(args.host, args.port)
    if problem is None:
        try:
            server = make_server(args.host, args.port, _placeholder_app, threaded=True)
        except (OSError, SystemExit):  # lost a race for the port since the check
            problem = port_problem(args.host, args.port) or f"cannot bind port {args.port}"
    if problem is not None:
        print(f"lens board: error: {problem}", file=sys.stderr)
        return EXIT_PORT_IN_USE

    from lens.board.app import create_app

    # One log line per request would bury the URL and the loading progress.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    app = create_app(_provider(logdir, args, samples), reload_interval=args.reload_interval)
    server.app = app
    provider = app.config["LENS_PROVIDER"]
    shown = args.host if ":" not in args.host else f"[{args.host}]"
    print(f"lens board: serving {app.config['LENS_DATA_LOCATION']}", file=out)
    print(f"lens board: open http://{shown}:{server.port}/ (Ctrl-C to stop)", file=out,
          flush=True)
    stop = threading.Event()
    threading.Thread(target=_report_loading, args=(provider, out, stop), daemon=True).start()
    try:
        # werkzeug's serve_forever returns on Ctrl-C; the except covers a signal between calls.
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        print("lens board: stopped", file=out, flush=True)
        stop.set()
        server.server_close()
        try:
            provider.stop()
        except Exception:  # stopping must never turn Ctrl-C into a traceback
            pass
    return 0


def _provider(logdir, args, samples):
    """The started DataProvider, with the cache dir and memory cap the flags ask for."""
    from lens.events.cache import default_cache_dir
    from lens.events.provider import DataProvider

    cache_dir = default_cache_dir(logdir) if args.cache_dir is None else args.cache_dir
    provider = DataProvider(logdir, reload_interval=args.reload_interval,
                            samples_per_plugin=samples or None, cache_dir=cache_dir or None,
                            max_memory_mb=args.max_memory_mb if args.max_memory_mb > 0 else None)
    provider.start()
    return provider


def _placeholder_app(environ, start_response):
    """Answers 503 in the instant between binding the port and building the app."""
    start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
    return [b"lens board is starting"]
