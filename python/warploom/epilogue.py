"""The activations a GEMM's epilogue applies, as the seed's cutlass.epilogue names them:

    plan.activation = warploom.epilogue.relu
    plan.activation = (warploom.epilogue.leaky_relu, 0.2)   # with its slope

identity; relu max(z, 0); leaky_relu z, or slope * z below 0; gelu z * Phi(z) (erf); gelu_tanh its
tanh approximation; hardswish z * clamp(z + 3, 0, 6) / 6; sigmoid; silu z * sigmoid(z); tanh.
The GEMM applies it in its own epilogue (no second kernel), after the bias and the scales that
plan.run(..., bias=..., row_scale=...) passes.
"""

from ._core import Activation

identity = Activation.identity
relu = Activation.relu
leaky_relu = Activation.leaky_relu
gelu = Activation.gelu
gelu_tanh = Activation.gelu_tanh
hardswish = Activation.hardswish
sigmoid = Activation.sigmoid
silu = Activation.silu
tanh = Activation.tanh


def get_activations():
    """Every activation, as Gemm.activations() lists them."""
    return list(Activation)
