"""Compute kernels behind the nn ops. Each has a plain-numpy reference with a fixed signature;
faster variants plug in beside it without changing the ops that call them."""

from . import numpy_ref

conv2d_forward = numpy_ref.conv2d_forward
conv2d_input_grad = numpy_ref.conv2d_input_grad
conv2d_weight_grad = numpy_ref.conv2d_weight_grad
max_pool2d_forward = numpy_ref.max_pool2d_forward
