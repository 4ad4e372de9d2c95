"""Graphs uploaded from the page ("Upload a GraphDef"): parsed here, kept in a small LRU.

POST /data/plugin/graphs/upload?name=model.pbtxt   body: the file's bytes (or a multipart
    form with a 'file' field) -> {"upload": "3f2a...", "name": "model.pbtxt", "num_ops": 42}
    A binary GraphDef (.pb) or a text one (.pbtxt); a file that is neither answers 400
    naming it. The hierarchy, node, trace and search routes then take &upload=<id> instead
    of &run=, so a graph can be viewed without any logdir.
"""

import hashlib
import threading
from collections import OrderedDict

from flask import current_app
from google.protobuf import text_format
from google.protobuf.message import DecodeError
from werkzeug.exceptions import BadRequest, NotFound, RequestEntityTooLarge

from lens.board.graph_model import GraphModel

MAX_BYTES = 256 * 1024 * 1024   # a GraphDef with big constants can be large
KEEP = 4                        # uploaded graphs kept per app
TEXT_SUFFIXES = (".pbtxt", ".pbtext", ".txt", ".prototxt")
_lock = threading.Lock()


def _graph_def_class():
    from lens.proto import graph_pb2

    return graph_pb2.GraphDef


def _parse_text(data):
    graph_def = _graph_def_class()()
    text_format.Parse(data.decode("utf-8"), graph_def)
    return graph_def


def _parse_binary(data):
    graph_def = _graph_def_class()()
    graph_def.ParseFromString(data)
    return graph_def


def parse_graph_def(data, name):
    """A GraphDef from a .pb or .pbtxt file's bytes; ValueError naming the file otherwise."""
    parsers = [_parse_binary, _parse_text]
    if name.lower().endswith(TEXT_SUFFIXES):
        parsers.reverse()
    errors = []
    for parse in parsers:
        try:
            graph_def = parse(data)
        except (DecodeError, text_format.ParseError, UnicodeDecodeError, ValueError) as err:
            errors.append(f"{'text' if parse is _parse_text else 'binary'}: {err}")
            continue
        if graph_def.node:
            return graph_def
        errors.append(f"{'text' if parse is _parse_text else 'binary'}: no nodes")
    raise ValueError(f"{name!r} is neither a binary GraphDef (.pb) nor a text GraphDef "
                     f"(.pbtxt) with nodes ({'; '.join(errors)}); export one with "
                     f"tf.io.write_graph(graph_def, dir, name, as_text=...)")


def _store():
    return current_app.extensions.setdefault("lens_graph_uploads", OrderedDict())


def add_upload(data, name):
    """Parse and keep an uploaded graph; returns the route's answer."""
    if len(data) > MAX_BYTES:
        raise RequestEntityTooLarge(f"{name!r} is {len(data)} bytes; at most {MAX_BYTES} "
                                    "can be uploaded")
    if not data:
        raise BadRequest(f"{name!r} is empty: choose a .pb or .pbtxt GraphDef file")
    key = hashlib.sha1(data).hexdigest()[:16]
    with _lock:
        known = _store().get(key)
    if known is None:
        try:
            model = GraphModel(parse_graph_def(data, name))
        except ValueError as err:
            raise BadRequest(str(err)) from None
        model.upload_name = name
        known = model
    with _lock:
        store = _store()
        store[key] = known
        store.move_to_end(key)
        while len(store) > KEEP:
            store.popitem(last=False)
    return {"upload": key, "name": name, "num_ops": len(known.ops)}


def uploaded(key):
    """The model of an earlier upload (404 once it has left the LRU)."""
    with _lock:
        model = _store().get(key)
    if model is None:
        raise NotFound(f"uploaded graph {key!r} is no longer kept (the server keeps the last "
                       f"{KEEP}); upload the file again")
    return model
