"""TF1 names of the model op families (tf.signal / tf.spectral, tf.audio, tf.manip, tf.distributions,
and the tf.nn / tf.image names they add), kept apart from namespaces.py so each family wires itself here."""
from lens.tf1 import namespaces as _ns
from lens.tf1.namespaces import LazyNamespace

_FFT, _SIG = "lens.ops.signal_fft.", "lens.ops.signal_ops."
_FFT_NAMES = ("fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d",
              "rfft3d", "irfft3d")

signal = LazyNamespace("signal", [], {
    **{n: _FFT + n for n in _FFT_NAMES + ("fftnd", "ifftnd", "rfftnd", "irfftnd")},
    **{n: _SIG + n for n in (
        "frame", "overlap_and_add", "hann_window", "hamming_window", "kaiser_window",
        "kaiser_bessel_derived_window", "vorbis_window", "stft", "inverse_stft", "inverse_stft_window_fn",
        "dct", "idct", "mdct", "inverse_mdct", "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms",
        "fftshift", "ifftshift")}})
spectral = LazyNamespace("spectral", [], {**{n: _FFT + n for n in _FFT_NAMES},
                                          "dct": _SIG + "dct", "idct": _SIG + "idct"})

distributions = LazyNamespace("distributions", ["lens.ops.distributions"])

# tf.manip: TF1.15's aliases of array ops.
manip = LazyNamespace("manip", [], {
    "reshape": "lens.ops.array.reshape", "tile": "lens.ops.array.tile",
    "gather_nd": "lens.ops.indexing.gather_nd", "scatter_nd": "lens.ops.indexing.scatter_nd",
    "reverse": "lens.ops.indexing.reverse", "roll": "lens.ops.scan_ops.roll",
    "space_to_batch_nd": "lens.ops.space_batch.space_to_batch_nd",
    "batch_to_space_nd": "lens.ops.space_batch.batch_to_space_nd"})

# Extra tf.nn and tf.image names (spliced into namespaces.nn / namespaces.image).
_NM, _C3, _SB = "lens.ops.nn_more.", "lens.ops.conv3d.", "lens.ops.space_batch."
NN_EXTRA = {
    "depth_to_space": "lens.ops.array_extra.depth_to_space",
    "space_to_depth": "lens.ops.array_extra.space_to_depth",
    "depthwise_conv2d_backprop_filter": "lens.ops.conv.depthwise_conv2d_native_backprop_filter",
    "depthwise_conv2d_backprop_input": "lens.ops.conv.depthwise_conv2d_native_backprop_input",
    **{n: _NM + n for n in ("swish", "silu", "zero_fraction", "sufficient_statistics", "normalize_moments",
                            "weighted_moments", "log_poisson_loss", "compute_average_loss",
                            "scale_regularization_loss", "batch_norm_with_global_normalization", "approx_max_k",
                            "approx_min_k", "atrous_conv2d_transpose")},
    **{n: _C3 + n for n in ("conv3d", "conv3d_transpose", "conv3d_backprop_filter", "conv3d_backprop_filter_v2",
                            "max_pool3d", "avg_pool3d", "max_pool_v2", "avg_pool_v2", "conv1d_transpose",
                            "conv_transpose", "convolution", "pool")},
    "space_to_batch": _SB + "space_to_batch", "with_space_to_batch": _SB + "with_space_to_batch",
    **{n: "lens.ops.nn_sampled." + n for n in (
        "uniform_candidate_sampler", "log_uniform_candidate_sampler", "learned_unigram_candidate_sampler",
        "fixed_unigram_candidate_sampler", "all_candidate_sampler", "compute_accidental_hits", "nce_loss",
        "sampled_softmax_loss")},
    **{n: "lens.ops.ctc." + n for n in (
        "ctc_loss", "ctc_loss_v2", "ctc_greedy_decoder", "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2",
        "collapse_repeated", "ctc_unique_labels")},
}
_IC, _IK, _IB, _IQ = ("lens.ops.image_codecs.", "lens.ops.image_color.", "lens.ops.image_boxes.",
                      "lens.ops.image_quality.")
IMAGE_EXTRA = {
    **{n: _IC + n for n in ("decode_png", "decode_jpeg", "decode_gif", "decode_bmp", "decode_image",
                            "decode_and_crop_jpeg", "encode_png", "encode_jpeg", "extract_jpeg_shape", "is_jpeg")},
    **{n: _IK + n for n in ("rgb_to_hsv", "hsv_to_rgb", "adjust_hue", "adjust_saturation", "adjust_gamma",
                            "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "grayscale_to_rgb", "rot90",
                            "total_variation", "psnr", "sobel_edges", "image_gradients", "random_brightness",
                            "random_contrast", "random_hue", "random_saturation", "random_flip_left_right",
                            "random_flip_up_down", "random_crop", "adjust_jpeg_quality", "random_jpeg_quality")},
    **{n: _IB + n for n in ("non_max_suppression", "non_max_suppression_with_scores", "non_max_suppression_padded",
                            "non_max_suppression_overlaps", "combined_non_max_suppression", "draw_bounding_boxes",
                            "crop_and_resize", "sample_distorted_bounding_box")},
    **{n: _IQ + n for n in ("ssim", "ssim_multiscale", "extract_image_patches", "extract_patches",
                            "resize_image_with_pad")}}
MATH_EXTRA = {n: "lens.ops.complex_ops." + n for n in ("real", "imag", "conj", "angle")}
_ns.nn._extra.update(NN_EXTRA)
for _k in NN_EXTRA:   # names resolved before this module ran (tf.nn.convolution) take the N-D versions
    _ns.nn.__dict__.pop(_k, None)
_ns.math._extra.update(MATH_EXTRA)
_ns.image._extra.update(IMAGE_EXTRA)

# Top-level tf.* names (imported by extra_names).
fft, ifft, fft2d, ifft2d, fft3d, ifft3d = (signal.fft, signal.ifft, signal.fft2d, signal.ifft2d, signal.fft3d,
                                           signal.ifft3d)
fftnd, ifftnd, rfftnd, irfftnd = signal.fftnd, signal.ifftnd, signal.rfftnd, signal.irfftnd
from lens.ops.image_color import random_crop  # noqa: E402,F401
from lens.ops.image_quality import extract_image_patches, extract_volume_patches  # noqa: E402,F401
from lens.ops.space_batch import (batch_to_space, batch_to_space_nd, required_space_to_batch_paddings,  # noqa: E402,F401
                                  space_to_batch, space_to_batch_nd)
from lens.ops.nn_more import conv2d_backprop_filter_v2, conv2d_backprop_input_v2  # noqa: E402,F401
from lens.ops.fake_quant import (fake_quant_with_min_max_args, fake_quant_with_min_max_args_gradient,  # noqa: E402,F401
                                 fake_quant_with_min_max_vars, fake_quant_with_min_max_vars_gradient,
                                 fake_quant_with_min_max_vars_per_channel,
                                 fake_quant_with_min_max_vars_per_channel_gradient)
from lens.ops.edit_distance import edit_distance  # noqa: E402,F401
from lens.ops.complex_ops import angle, complex, conj, imag, real, to_complex64, to_complex128  # noqa: E402,F401,A004

# tf.audio and the morphological / index-returning pools.
audio = LazyNamespace("audio", [], {n: "lens.ops.audio_ops." + n for n in ("decode_wav", "encode_wav")})
_ns.nn._extra.update({n: "lens.ops.nn_morph." + n for n in (
    "dilation2d", "erosion2d", "max_pool_with_argmax", "fractional_max_pool", "fractional_avg_pool")})

# tf.image's bicubic and area resizes (resize_images / resize are in namespaces.py).
_RS = {n: "lens.ops.image_resize_more." + n for n in ("resize_bicubic", "resize_area")}
_ns.image._extra.update(_RS)
for _k in _RS:
    _ns.image.__dict__.pop(_k, None)

# tf.io's names for the image codecs.
_ns.io._extra.update({n: "lens.ops.image_codecs." + n for n in (
    "decode_png", "decode_jpeg", "decode_gif", "decode_bmp", "decode_image", "decode_and_crop_jpeg", "encode_png",
    "encode_jpeg", "extract_jpeg_shape", "is_jpeg", "decode_webp")})
_ns.image._extra["decode_webp"] = "lens.ops.image_codecs.decode_webp"

# tf.layers' 1-D / 3-D convolution and pooling layers and the separable convolutions.
_ns.layers._extra.update({n: "lens.layers.conv_more." + n for n in (
    "Conv1D", "Conv3D", "Conv3DTranspose", "MaxPooling1D", "MaxPooling3D", "AveragePooling1D", "AveragePooling3D",
    "SeparableConv1D", "SeparableConv2D", "Convolution1D", "Convolution3D", "Convolution3DTranspose",
    "Deconvolution3D", "MaxPool1D", "MaxPool3D", "AvgPool1D", "AvgPool3D", "SeparableConvolution1D",
    "SeparableConvolution2D", "conv1d", "conv3d", "conv3d_transpose", "separable_conv1d", "separable_conv2d",
    "max_pooling1d", "max_pooling3d", "average_pooling1d", "average_pooling3d")})
_ns.nn._extra["experimental"] = LazyNamespace("experimental", [], {
    "general_dropout": "lens.ops.nn_more.general_dropout",
    "stateless_dropout": "lens.ops.nn_more.stateless_dropout"})
_ns.nn.__dict__.pop("experimental", None)
_ns.image._extra["extract_glimpse"] = "lens.ops.image_glimpse.extract_glimpse"

# tf.random's names for the candidate samplers.
_ns.random._extra.update({n: "lens.ops.nn_sampled." + n for n in (
    "uniform_candidate_sampler", "log_uniform_candidate_sampler", "learned_unigram_candidate_sampler",
    "fixed_unigram_candidate_sampler", "all_candidate_sampler")})
_ns.nn._extra["raw_rnn"] = "lens.rnn.raw_rnn.raw_rnn"
