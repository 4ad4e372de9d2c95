"""tf.decode_csv: the DecodeCSV op with TF1's quoting, defaults, na_value and errors."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph
from lens.ops.string_base import (_CSV_TYPES, _fail, _obj, _strings, _text, _parse_numbers)
from lens.framework.registry import register_op

# ---- DecodeCSV ---------------------------------------------------------------------------------
def _csv_fields(record, delim, quotes, cols):
    """The fields of one record under TF's CSV rules (selected columns only); raises ValueError."""
    fields, i, n, k = [], 0, len(record), 0
    want = (lambda k: True) if cols is None else (lambda k: k in cols)
    while i < n:
        if record[i] in b"\r\n":  # CR/LF between fields are skipped
            i += 1
            continue
        if quotes and record[i:i + 1] == b'"':
            i += 1
            buf = bytearray()
            while i < n - 1 and not (record[i:i + 1] == b'"' and record[i + 1:i + 2] == delim):
                if record[i:i + 1] != b'"':
                    buf.append(record[i])
                    i += 1
                elif record[i + 1:i + 2] == b'"':
                    buf.append(34)
                    i += 2
                else:
                    raise ValueError("Quote inside a string has to be escaped by another quote")
            if not (i < n and record[i:i + 1] == b'"' and (i == n - 1 or record[i + 1:i + 2] == delim)):
                raise ValueError("Quoted field has to end with quote followed by delim or end")
            field, i = bytes(buf), i + 2
        else:
            j = record.find(delim, i)
            j = n if j < 0 else j
            field = record[i:j]
            if (quotes and b'"' in field) or b"\n" in field or b"\r" in field:
                raise ValueError("Unquoted fields cannot have quotes/CRLFs inside")
            i = j + 1
        if want(k):
            fields.append(field)
        k += 1
    if n and record[n - 1:] == delim and want(k):
        fields.append(b"")  # a trailing delimiter ends with one empty field
    return fields


def _decode_csv_make(op, ctx):
    delim = op._attrs["field_delim"].encode()
    quotes, na = op._attrs["use_quote_delim"], op._attrs["na_value"].encode()
    cols = op._attrs["select_cols"]
    cols = set(cols) if cols else None
    types = op._attrs["OUT_TYPE"]
    if len(delim) != 1:
        _fail(op, "field_delim should be only 1 char, got %r" % delim.decode())

    def run(records, *defaults):
        recs = _obj(records)
        flat = recs.reshape(-1)
        for f, d in enumerate(defaults):
            if np.ndim(d) > 1:
                _fail(op, "Each record default should be at most rank 1")
            if np.size(d) > 1:
                _fail(op, "There should only be 1 default per field but field %d has %d" % (f, np.size(d)))
        simple = not any((quotes and b'"' in r) or b"\n" in r or b"\r" in r for r in flat.tolist())
        if simple and cols is None:
            # no quotes or line breaks: every field boundary is a delimiter, so split all at once
            counts = np.array([r.count(delim) + 1 if r else 0 for r in flat.tolist()], dtype=np.int64)
            wrong = np.flatnonzero(counts != len(types))
            if wrong.size:
                _fail(op, "Expect %d fields but have %d in record %d" % (len(types), counts[wrong[0]], wrong[0]))
            table = np.array(delim.join(flat.tolist()).split(delim) if flat.size else [], dtype=object)
            table = table.reshape(flat.size, len(types))
        else:
            rows = []
            for r, rec in enumerate(flat.tolist()):
                try:
                    fields = _csv_fields(rec, delim, quotes, cols)
                except ValueError as e:
                    _fail(op, "%s (record %d: %r)" % (e, r, rec))
                if len(fields) != len(types):
                    _fail(op, "Expect %d fields but have %d in record %d" % (len(types), len(fields), r))
                rows.append(fields)
            table = np.empty((flat.size, len(types)), dtype=object)
            if rows:
                table[...] = rows
        return tuple(_csv_column(op, table[:, f], f, dt, defaults[f], na).reshape(recs.shape)
                     for f, dt in enumerate(types))
    return run


def _csv_column(op, col, f, dtype, default, na):
    """One output column: missing fields take the default, others parse as dtype."""
    missing = np.equal(col, b"") | (np.equal(col, na) if na else False)
    if missing.any() and np.size(default) == 0:
        _fail(op, "Field %d is required but missing in record %d!" % (f, np.flatnonzero(missing)[0]))
    if dtype is _dt.string:
        out = col.copy()
        if missing.any():
            out[missing] = np.asarray(default).reshape(-1)[0]
        return out
    values, bad = _parse_numbers(np.where(missing, b"0", col), dtype)
    if bad.any():
        r = np.flatnonzero(bad)[0]
        _fail(op, "Field %d in record %d is not a valid %s: %s"
              % (f, r, {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name), _text(col[r])))
    if missing.any():
        values[missing] = np.asarray(default).reshape(-1)[0]
    return values


register_op("DecodeCSV", make=_decode_csv_make, not_differentiable=True,
            shape=lambda op: [op._inputs[0].shape] * len(op._attrs["OUT_TYPE"]))


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """Convert CSV records to one tensor per column, typed by record_defaults (empty default = required)."""
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(a >= b for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    def build():
        recs = _strings(records, "records")
        defaults = [convert_to_tensor(d, name="record_defaults") for d in record_defaults]
        for i, d in enumerate(defaults):
            if d.dtype.base_dtype not in _CSV_TYPES:
                raise TypeError("Value passed to parameter 'record_defaults' has DataType %s not in list of "
                                "allowed values: float32, float64, int32, int64, string (record_defaults[%d])"
                                % (d.dtype.name, i))
        types[:] = [d.dtype.base_dtype for d in defaults]
        return [recs] + defaults, {"OUT_TYPE": list(types), "field_delim": field_delim,
                                   "use_quote_delim": bool(use_quote_delim), "na_value": na_value,
                                   "select_cols": select_cols or []}
    types = []
    g = get_default_graph()
    with g.name_scope(name or "DecodeCSV") as scope:
        tensors, attrs = build()
        op = g._create_op("DecodeCSV", tensors, types, attrs, scope, frames_skip=3)
    return list(op._outputs)
