"""Aggregation of op-level edges into the edges drawn between two children of a scope."""


def shape_label(dims):
    """TensorBoard-style edge label for a shape: '?×784', 'scalar', '?' for unknown rank."""
    if dims is None:
        return "?"
    if not dims:
        return "scalar"
    return "×".join("?" if d < 0 else str(d) for d in dims)


def shape_size(dims):
    """Element count used for edge thickness (unknown dims count as 1)."""
    if dims is None:
        return 1
    size = 1
    for d in dims:
        size *= d if d > 0 else 1
    return size


def aggregate(raw):
    """[(a, b, is_control, dims[, src op path, dst op path])] -> edges sorted by (a, b).

    Each edge is [a, b, n_data, n_control, label, size, src_ops, dst_ops]. dims is False when
    the source has no `_output_shapes`; size is then None (the page falls back to thickness
    by edge count). The label is the shape for a single tensor, 'N tensors' for a bundle,
    '' for control-only edges or unknown shapes. src_ops/dst_ops list the distinct ops inside
    a (or b) the edge really leaves (or reaches); they are empty when a (or b) is that op."""
    merged = {}
    for item in raw:
        if len(item) > 4:
            a, b, ctrl, dims, src, dst = item
        else:
            a, b, ctrl, dims = item
            src, dst = a, b
        key = (a, b)
        entry = merged.get(key)
        if entry is None:
            entry = merged[key] = [0, 0, [], True, set(), set()]
        if src != a:
            entry[4].add(src)
        if dst != b:
            entry[5].add(dst)
        if ctrl:
            entry[1] += 1
            continue
        entry[0] += 1
        entry[2].append(dims)
        if dims is False:
            entry[3] = False
    out = []
    for (a, b), (n_data, n_ctrl, shapes, known, srcs, dsts) in sorted(merged.items()):
        if n_data == 1 and known:
            label = shape_label(shapes[0])
        elif n_data > 1:
            label = f"{n_data} tensors"
        else:
            label = ""
        size = float(sum(shape_size(d) for d in shapes)) if known and n_data else None
        out.append([a, b, n_data, n_ctrl, label, size, sorted(srcs), sorted(dsts)])
    return out
