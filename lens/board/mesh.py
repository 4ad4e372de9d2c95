"""Mesh dashboard routes (TensorBoard's paths and answers).

GET /data/plugin/mesh/tags                     {run: {mesh name: {"samples": batch size}}}
GET /meshes?run=&tag=                          [{wall_time, step, content_type, components, config,
                                                 data_shape}] for each part and step, step order
GET /data?run=&tag=&content_type=VERTEX|FACE|COLOR&sample=0&step=N
                                               the part's values at that step: float32 vertices,
                                               int32 faces or uint8 colours, as raw bytes
lens only:
GET /problems?run=&tag=                        {"step": message}: steps whose faces index vertices that
                                               do not exist (such a mesh is not drawn)
"""

import numpy as np
from flask import Blueprint, Response, request

from lens.board.params import json_response, provider
from lens.events.provider import NotFound
from lens.proto import mesh_plugin_data_pb2

PLUGIN = "mesh"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")
KNOWN_VERSION = 0
MeshPluginData = mesh_plugin_data_pb2.MeshPluginData
_ALL_PARTS = (1 << MeshPluginData.VERTEX) | (1 << MeshPluginData.FACE) | (1 << MeshPluginData.COLOR)
_NUMPY = {MeshPluginData.VERTEX: np.float32, MeshPluginData.FACE: np.int32, MeshPluginData.COLOR: np.uint8}


def parse(content):
    """MeshPluginData of a tag (components filled in for writers that left it out)."""
    data = MeshPluginData.FromString(bytes(content))
    if data.components == 0:
        data.components = _ALL_PARTS
    return data


def _parts(data_provider, run=None):
    """{run: {instance tag: MeshPluginData}} of readable, known-version mesh tags."""
    out = {}
    for name, tags in data_provider.plugin_tags(PLUGIN).items():
        if run is not None and name != run:
            continue
        entry = {}
        for tag, info in tags.items():
            try:
                data = parse(info["content"])
            except Exception:  # unreadable plugin data: skipped like a newer version
                continue
            if data.version <= KNOWN_VERSION:
                entry[tag] = data
        out[name] = entry
    return out


def is_active(data_provider):
    return any(_parts(data_provider).values())


def tag_index(data_provider):
    return {run: {data.name: {"samples": data.shape[0] if data.shape else 0} for data in parts.values()}
            for run, parts in _parts(data_provider).items()}


def tensor_events(data_provider, run, tag, step=None):
    """[(MeshPluginData, wall_time, step, array)] of the mesh's parts, in step order."""
    events = []
    for instance, data in _parts(data_provider, run).get(run, {}).items():
        if data.name != tag:
            continue
        try:
            series = data_provider.tensors(run, instance)
        except NotFound:
            continue
        events += [(data, wall, s, array) for wall, s, array in series]
    if step is not None:
        return [e for e in events if e[2] == step]
    return sorted(events, key=lambda e: (e[2], e[0].content_type))


def face_problems(events):
    """{step: message} for steps whose faces name a vertex index outside [0, points)."""
    by_step = {}
    for data, _, step, array in events:
        by_step.setdefault(step, {})[data.content_type] = np.asarray(array)
    out = {}
    for step, parts in sorted(by_step.items()):
        faces, vertices = parts.get(MeshPluginData.FACE), parts.get(MeshPluginData.VERTEX)
        if faces is None or vertices is None or faces.size == 0:
            continue
        points = vertices.shape[1] if vertices.ndim == 3 else 0
        bad = (faces < 0) | (faces >= points)
        if bad.any():
            out[str(step)] = ("faces index vertex %d, but the mesh has %d vertices (indices 0..%d); %d of %d "
                              "face indices are out of range" % (int(faces[bad].flat[0]), points, points - 1,
                                                                 int(bad.sum()), faces.size))
    return out


@bp.route("/tags")
def tags_route():
    return json_response(tag_index(provider()))


@bp.route("/meshes")
def meshes_route():
    events = tensor_events(provider(), request.args.get("run"), request.args.get("tag"))
    return json_response([{"wall_time": wall, "step": step, "content_type": data.content_type,
                           "components": data.components, "config": data.json_config,
                           "data_shape": list(data.shape)} for data, wall, step, _ in events])


@bp.route("/data")
def data_route():
    try:
        step = float(request.args.get("step", 0.0))
    except ValueError:
        return json_response({"error": "step must be a number"}, status=400)
    content_type = request.args.get("content_type")
    if content_type not in ("VERTEX", "FACE", "COLOR"):
        return json_response({"error": "Bad content_type"}, status=400)
    content_type = MeshPluginData.ContentType.Value(content_type)
    try:
        sample = int(request.args.get("sample", 0))
    except ValueError:
        return json_response({"error": "sample must be an integer"}, status=400)
    events = tensor_events(provider(), request.args.get("run"), request.args.get("tag"), step)
    arrays = [np.asarray(array) for data, _, _, array in events if data.content_type == content_type]
    if any(not 0 <= sample < len(a) for a in arrays):
        return json_response({"error": "sample %d is out of range: this mesh has %d per step"
                              % (sample, min(len(a) for a in arrays))}, status=400)
    values = [a[sample] for a in arrays]
    body = np.array(values, dtype=_NUMPY[content_type]).reshape(-1).tobytes()
    return Response(body, mimetype="arraybuffer")


@bp.route("/problems")
def problems_route():
    return json_response(face_problems(tensor_events(provider(), request.args.get("run"),
                                                     request.args.get("tag"))))
