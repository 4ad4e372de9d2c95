"""Where TF1 exposes the scan, segment and matrix ops: tf.X, tf.math.X, tf.linalg.X."""
import pytest

import lens as tf

TOP_AND_MATH = ["cumsum", "cumprod", "segment_sum", "segment_mean", "segment_max", "segment_min",
                "segment_prod", "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min"]
TOP = ["unique", "roll", "eye", "matrix_transpose", "trace", "matrix_band_part", "matrix_diag",
       "matrix_diag_part", "matrix_set_diag", "tensordot", "matrix_inverse", "matrix_determinant",
       "cholesky", "einsum", "space_to_depth", "depth_to_space", "count_nonzero", "meshgrid", "diag"]
LINALG = {"eye": "eye", "matrix_transpose": "matrix_transpose", "transpose": "matrix_transpose",
          "trace": "trace", "band_part": "matrix_band_part", "diag": "matrix_diag",
          "diag_part": "matrix_diag_part", "set_diag": "matrix_set_diag", "tensordot": "tensordot",
          "inv": "matrix_inverse", "det": "matrix_determinant", "cholesky": "cholesky",
          "einsum": "einsum"}


@pytest.mark.parametrize("name", TOP_AND_MATH)
def test_in_tf_and_tf_math(name):
    assert getattr(tf, name) is getattr(tf.math, name)


@pytest.mark.parametrize("name", TOP)
def test_at_top_level(name):
    assert callable(getattr(tf, name))


@pytest.mark.parametrize("name, top", sorted(LINALG.items()))
def test_tf_linalg_names(name, top):
    assert getattr(tf.linalg, name) is getattr(tf, top)


def test_tf_diag_is_the_vector_diag_not_tf_linalg_diag():
    with tf.Graph().as_default():
        assert tf.diag([1.0, 2.0]).op.type == "Diag"
        assert tf.linalg.diag([1.0, 2.0]).op.type == "MatrixDiag"


IMAGE = ["resize_bilinear", "resize_nearest_neighbor", "resize_images", "resize", "ResizeMethod",
         "flip_left_right", "flip_up_down", "transpose_image", "transpose", "per_image_standardization",
         "central_crop", "crop_to_bounding_box", "pad_to_bounding_box", "resize_image_with_crop_or_pad",
         "resize_with_crop_or_pad", "convert_image_dtype", "rgb_to_grayscale", "adjust_brightness",
         "adjust_contrast"]


@pytest.mark.parametrize("name", IMAGE)
def test_tf_image_names(name):
    assert getattr(tf.image, name) is not None


def test_tf_image_keeps_internals_out():
    for name in ("resize_bilinear_grad", "adjust_contrastv2", "np"):
        with pytest.raises(AttributeError):
            getattr(tf.image, name)
    assert tf.image.resize is tf.image.resize_images and callable(tf.saturate_cast)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "polygamma"])
def test_special_functions_in_tf_and_tf_math(name):
    assert getattr(tf, name) is getattr(tf.math, name)


@pytest.mark.parametrize("name", ["qr", "svd"])
def test_decompositions_in_tf_and_tf_linalg(name):
    assert getattr(tf, name) is getattr(tf.linalg, name)


def test_namespaces_do_not_leak_the_modules_their_sources_import():
    for namespace in (tf.math, tf.nn, tf.linalg, tf.train, tf.layers):
        with pytest.raises(AttributeError, match="not implemented in lens yet"):
            getattr(namespace, "np")


STRINGS_TOP = ["decode_csv", "decode_raw", "string_join", "reduce_join", "as_string", "string_to_number",
               "substr", "regex_replace", "string_split"]
STRINGS_NS = {"join": "string_join", "to_number": "string_to_number", "reduce_join": "reduce_join",
              "substr": "substr", "regex_replace": "regex_replace"}


@pytest.mark.parametrize("name", STRINGS_TOP)
def test_string_ops_at_top_level(name):
    assert callable(getattr(tf, name))


@pytest.mark.parametrize("name, top", sorted(STRINGS_NS.items()))
def test_tf_strings_names(name, top):
    assert getattr(tf.strings, name) is getattr(tf, top)


def test_tf_io_decoders_and_string_only_names():
    assert tf.io.decode_csv is tf.decode_csv and tf.io.decode_raw is tf.decode_raw
    assert callable(tf.strings.strip) and callable(tf.strings.length)


def test_constant_keeps_trailing_nul_bytes():
    with tf.Graph().as_default():
        c = tf.constant([b"\x01\x00", b"ab"])
        with tf.Session() as sess:
            assert sess.run(c).tolist() == [b"\x01\x00", b"ab"]


@pytest.mark.parametrize("new, old", [("tensor_scatter_nd_update", "tensor_scatter_update"),
                                      ("tensor_scatter_nd_add", "tensor_scatter_add"),
                                      ("tensor_scatter_nd_sub", "tensor_scatter_sub")])
def test_tensor_scatter_names_and_their_tf114_aliases(new, old):
    assert getattr(tf, new) is getattr(tf, old)


def test_arg_max_and_arg_min_are_tf1s_raw_signatures():
    x = tf.constant([[1., 5., 2.], [7., 0., 3.]])
    a = tf.arg_max(x, 1)
    b = tf.arg_min(x, dimension=0, output_type=tf.int32)
    assert (a.op.type, a.dtype, b.op.type, b.dtype) == ("ArgMax", tf.int64, "ArgMin", tf.int32)
    with tf.Session() as s:
        va, vb = s.run([a, b])
    assert va.tolist() == [1, 0] and vb.tolist() == [0, 1, 0]
