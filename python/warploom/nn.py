"""warploom.nn.Linear: torch.nn.Linear with the activation fused into the GEMM's epilogue.

    layer = warploom.nn.Linear(8192, 8192, activation="gelu", device="cuda", dtype=torch.bfloat16)
    y = layer(x)      # gelu(x @ W^T + b): one warploom GEMM, bias and GELU in its epilogue

The parameters are torch.nn.Linear's (weight out x in, bias out), so a state_dict moves between
the two. The forward pass is torch.ops.warploom.gemm_act on W^T (a transposed view, read in
place); autograd and torch.compile come with the op (warploom.library). Importing this module
imports torch.
"""

import torch

from . import library


class Linear(torch.nn.Linear):
    """activation(x @ weight^T + bias), one GEMM: `activation` names a warploom.epilogue
    activation ("identity" by default); `slope` is leaky_relu's."""

    def __init__(self, in_features, out_features, bias=True, activation="identity", slope=0.01,
                 device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        if activation not in library.TORCH_ACTIVATIONS:
            raise ValueError(f"warploom.nn.Linear: activation = {activation!r} is not one of "
                             f"{', '.join(library.TORCH_ACTIVATIONS)}")
        self.activation = activation
        self.slope = float(slope)

    def forward(self, x):
        rows = x.reshape(-1, x.shape[-1])  # leading dimensions folded into M
        y = torch.ops.warploom.gemm_act(rows, self.weight.t(), self.bias, self.activation,
                                        self.slope)
        return y.reshape(*x.shape[:-1], self.out_features)

    def extra_repr(self):
        return f"{super().extra_repr()}, activation={self.activation}"
