"""Device specs in every TF1 form, session devices, and placement of ops onto them."""
import os
import sys

from lens.framework import errors

__all__ = ["DeviceSpec", "merge_device_strings", "canonical_device", "session_devices",
           "DeviceAttributes", "Placer"]

LOCAL_PREFIX = "/job:localhost/replica:0/task:0"
# Types whose short forms "/cpu:0" and "/gpu:1" TF1 accepts (and upper-cases).
_SHORT_TYPES = ("CPU", "GPU")
# Op types that only read metadata of their input: TF places them with that input.
_METADATA_OPS = frozenset(["Shape", "ShapeN", "Size", "Rank"])
_FIELD_WORDS = {"job": "jobs", "replica": "replicas", "task": "tasks", "device_type": "types",
                "device_index": "ids"}


class DeviceSpec:
    """A (possibly partial) device specification: job, replica, task, device type and index."""

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = _norm_type(device_type)
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec):
        """Parse '/job:j/replica:r/task:t/device:TYPE:i', '/cpu:0', 'GPU:1', partial forms."""
        return cls().parse_from_string(spec)

    def parse_from_string(self, spec):
        """Fill this spec from a string (fields absent from the string are reset to None)."""
        if not isinstance(spec, str):
            raise TypeError("A device spec must be a string, got %r of type %s"
                            % (spec, type(spec).__name__))
        self.job = self.replica = self.task = self.device_type = self.device_index = None
        for part in (spec or "").split("/"):
            if not part:
                continue
            bits = part.split(":")
            key = bits[0]
            if len(bits) == 2 and key == "job":
                self.job = bits[1]
            elif len(bits) == 2 and key in ("replica", "task"):
                setattr(self, key, _int_field(bits[1], key, spec))
            elif len(bits) in (1, 2) and key.upper() in _SHORT_TYPES:
                self._set_type(key.upper(), bits[1] if len(bits) == 2 else "*", spec)
            elif len(bits) == 3 and key == "device":
                self._set_type(_norm_type(bits[1]), bits[2], spec)
            else:
                raise ValueError("Unknown attribute: '%s' in '%s' (expected /job:<name>, "
                                 "/replica:<n>, /task:<n>, /device:<TYPE>:<n> or /cpu:<n>)"
                                 % (key, spec))
        return self

    def _set_type(self, dtype, index, spec):
        if self.device_type is not None:
            raise ValueError("Cannot specify multiple device types: %s" % spec)
        self.device_type = dtype
        self.device_index = None if index == "*" else _int_field(index, "device index", spec)

    def merge_from(self, other):
        """Override this spec's fields with the fields set in other."""
        for name in self.__slots__:
            value = getattr(other, name)
            if value is not None:
                setattr(self, name, value)

    def make_merged_spec(self, other):
        """A new spec: this one with other's set fields overriding."""
        out = DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)
        out.merge_from(other)
        return out

    def replace(self, **kwargs):
        """A copy with some fields replaced."""
        out = DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)
        for k, v in kwargs.items():
            if k not in self.__slots__:
                raise TypeError("DeviceSpec has no field %r" % k)
            setattr(out, k, v)
        return out

    def to_string(self):
        """The canonical string, e.g. '/job:localhost/replica:0/task:0/device:CPU:0'."""
        out = []
        if self.job is not None:
            out.append("/job:%s" % self.job)
        if self.replica is not None:
            out.append("/replica:%d" % self.replica)
        if self.task is not None:
            out.append("/task:%d" % self.task)
        if self.device_type is not None:
            idx = "*" if self.device_index is None else str(self.device_index)
            out.append("/device:%s:%s" % (self.device_type, idx))
        return "".join(out)

    def matches(self, full):
        """True when the fully specified spec `full` satisfies every field set here."""
        return all(getattr(self, n) is None or getattr(self, n) == getattr(full, n) for n in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return "<DeviceSpec %r>" % self.to_string()

    __str__ = to_string


def _norm_type(t):
    # TF upper-cases the short CPU/GPU names; other types keep their spelling.
    if t is None:
        return None
    return t.upper() if t.upper() in _SHORT_TYPES else t


def _int_field(text, what, spec):
    try:
        return int(text)
    except ValueError:
        raise ValueError("Invalid %s %r in device spec '%s': it must be an integer"
                         % (what, text, spec)) from None


def canonical_device(spec):
    """Canonical form of a device string ('/cpu:0' -> '/device:CPU:0'; '' stays '')."""
    if not spec:
        return ""
    return DeviceSpec.from_string(spec).to_string()


def merge_device_strings(outer, inner):
    """The device of an op created under tf.device(inner) nested in tf.device(outer)."""
    if not inner:
        return canonical_device(outer)
    merged = DeviceSpec.from_string(outer or "")
    merged.merge_from(DeviceSpec.from_string(inner))
    return merged.to_string()


class DeviceAttributes:
    """One local device, as Session.list_devices() returns it."""

    __slots__ = ("name", "device_type", "memory_limit_bytes", "incarnation")

    def __init__(self, name, device_type, memory_limit_bytes, incarnation):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self):
        return "_DeviceAttributes(%s, %s, %d, %d)" % (self.name, self.device_type,
                                                      self.memory_limit_bytes, self.incarnation)


def _memory_limit():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 32


def device_names(config=None):
    """Full names of the session's devices: CPU:0..n-1 (lens has no GPUs, as a CPU-only TF)."""
    n = 1
    if config is not None and "CPU" in config.device_count:
        n = config.device_count["CPU"]
        if n < 1:
            raise ValueError("ConfigProto.device_count['CPU'] is %d; a session needs at least one "
                             "CPU device (use device_count={'CPU': 1} or more)" % n)
    return ["%s/device:CPU:%d" % (LOCAL_PREFIX, i) for i in range(n)]


def session_devices(config=None):
    """DeviceAttributes for each device of a session with this ConfigProto."""
    limit = _memory_limit()
    return [DeviceAttributes(name, "CPU", limit, 0x5EED0000 + i)
            for i, name in enumerate(device_names(config))]


class Placer:
    """Assigns each op of a graph a full device name, the first time a session runs it."""

    def __init__(self, graph, config=None):
        self.graph = graph
        self.names = device_names(config)
        self.specs = [DeviceSpec.from_string(n) for n in self.names]
        self.soft = bool(config is not None and config.allow_soft_placement)
        self.log = bool(config is not None and config.log_device_placement)
        self.assigned = {}      # op -> full device name
        self._placed_upto = 0   # ops with _id below this are placed
        if self.log:
            # TF prints the device mapping once per session; CPU devices have no mapping lines.
            print("Device mapping: no known devices.", flush=True)

    def place_new_ops(self):
        """Place every op added to the graph since the last call (TF places on first run)."""
        ops = self.graph._ops
        if self._placed_upto >= len(ops):
            return
        new = ops[self._placed_upto:]
        groups = self._groups(new)
        lines = []
        for root, members in groups.items():
            device = self._place_group(root, members)
            for op in members:
                self.assigned[op] = device
        # Heuristics after the groups: generators follow their only consumer, metadata ops their input.
        for op in new:
            self._heuristics(op)
        for op in new:
            if self.log:
                lines.append("%s: (%s): %s" % (op._name, op._type, self.assigned[op]))
        self._placed_upto = len(ops)
        self.graph._assigned_devices = {op._name: d for op, d in self.assigned.items()}
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()

    def _groups(self, ops):
        """Union-find over colocation constraints: colocate_with groups and reference edges."""
        parent = {}

        def find(x):
            while parent.get(x, x) is not x:
                parent[x] = parent.get(parent[x], parent[x])
                x = parent[x]
            return x

        def union(a, b):
            ra, rb = find(a), find(b)
            if ra is not rb:
                parent[rb] = ra

        by_name = self.graph._ops_by_name
        for op in ops:
            for loc in op._colocation:
                target = by_name.get(loc)
                if target is not None:
                    union(target, op)
            for t in op._inputs:
                # TF colocates ops consuming a reference (a variable's Assign, its read) with its producer.
                if t._dtype.is_ref_dtype:
                    union(t._op, op)
        groups = {}
        for op in ops:
            groups.setdefault(find(op), []).append(op)
        return groups

    def _place_group(self, root, members):
        """One device for a colocation group: the merge of its members' requests."""
        already = [self.assigned[m] for m in [root] + members if m in self.assigned]
        if already:
            return already[0]
        request, pinned_by = DeviceSpec(), None
        for op in members:
            if not op._device:
                continue
            spec = DeviceSpec.from_string(op._device)
            for field in DeviceSpec.__slots__:
                mine, theirs = getattr(request, field), getattr(spec, field)
                if mine is not None and theirs is not None and mine != theirs and not self.soft:
                    raise errors.InvalidArgumentError(
                        op.node_def, op,
                        "Cannot colocate nodes {{colocation_node %s}} and {{colocation_node %s}}: "
                        "Cannot merge devices with incompatible %s: '%s' and '%s'. Ops colocated "
                        "by colocate_with or by a reference input (a variable and its Assign/read) "
                        "must be pinned to the same device, or to none."
                        % (pinned_by._name, op._name, _FIELD_WORDS[field], pinned_by._device, op._device))
            request.merge_from(spec)
            pinned_by = pinned_by or op
        if pinned_by is None:
            return self.names[0]
        for spec, name in zip(self.specs, self.names):
            if request.matches(spec):
                return name
        if self.soft:
            # Soft placement drops the device type and index, keeping job/replica/task.
            relaxed = request.replace(device_type=None, device_index=None)
            for spec, name in zip(self.specs, self.names):
                if relaxed.matches(spec):
                    return name
        raise self._cannot_assign(pinned_by)

    def _cannot_assign(self, op):
        msg = ("Cannot assign a device for operation '%s': Operation was explicitly assigned to %s "
               "but available devices are [ %s ]. Make sure the device specification refers to a "
               "valid device." % (op._name, op._device, ", ".join(self.names)))
        if DeviceSpec.from_string(op._device).device_type == "GPU":
            msg += " The requested device appears to be a GPU, but CUDA is not enabled."
        msg += (" (lens exposes CPU devices only: raise ConfigProto(device_count={'CPU': n}) or "
                "pass allow_soft_placement=True.)")
        return errors.InvalidArgumentError(op.node_def, op, msg)

    def _heuristics(self, op):
        if op._device or op._colocation:
            return
        consumers = op._outputs[0]._consumers if len(op._outputs) == 1 else []
        if not op._inputs and not op._control_inputs and len(consumers) == 1 \
                and not any(t._dtype.is_ref_dtype for t in op._outputs):
            self.assigned[op] = self.assigned.get(consumers[0], self.assigned[op])
        elif op._type in _METADATA_OPS and op._inputs:
            self.assigned[op] = self.assigned.get(op._inputs[0]._op, self.assigned[op])
