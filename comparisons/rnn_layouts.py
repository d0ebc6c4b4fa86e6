"""One LSTM, two layouts: TF's ``BasicLSTMCell`` kernel and PyTorch's ``nn.LSTM`` parameters.

    TF:       kernel [input + hidden, 4 * hidden], bias [4 * hidden], gates i, j, f, o,
              and ``forget_bias`` (1.0) added to f inside the cell
    PyTorch:  weight_ih [4 * hidden, input], weight_hh [4 * hidden, hidden],
              bias_ih + bias_hh [4 * hidden], gates i, f, g, o   (g is TF's j)

The showcase and the tests use this to run the same weights in both engines.

>>> import numpy as np
>>> sd = tf_lstm_to_torch(np.zeros((5, 8)), np.zeros(8), input_size=3)
>>> sorted(sd), sd["bias_ih_l0"].tolist()
(['bias_hh_l0', 'bias_ih_l0', 'weight_hh_l0', 'weight_ih_l0'], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
"""
from __future__ import annotations

import numpy as np

__all__ = ["tf_lstm_to_torch", "torch_lstm_to_tf"]


def _tf_to_torch_order(a: np.ndarray, hidden: int) -> np.ndarray:
    """Gate blocks along the last axis: TF's (i, j, f, o) -> PyTorch's (i, f, g=j, o)."""
    i, j, f, o = (a[..., k * hidden:(k + 1) * hidden] for k in range(4))
    return np.concatenate([i, f, j, o], axis=-1)


def tf_lstm_to_torch(kernel: np.ndarray, bias: np.ndarray, input_size: int,
                     forget_bias: float = 1.0, suffix: str = "_l0") -> dict[str, np.ndarray]:
    """A ``BasicLSTMCell``'s kernel and bias as ``nn.LSTM`` state-dict arrays (``bias_hh`` zero)."""
    hidden = kernel.shape[1] // 4
    k = _tf_to_torch_order(kernel, hidden)
    b = _tf_to_torch_order(bias, hidden).copy()
    b[hidden:2 * hidden] += forget_bias
    return {"weight_ih" + suffix: np.ascontiguousarray(k[:input_size].T),
            "weight_hh" + suffix: np.ascontiguousarray(k[input_size:].T),
            "bias_ih" + suffix: b, "bias_hh" + suffix: np.zeros_like(b)}


def torch_lstm_to_tf(state: dict, forget_bias: float = 1.0,
                     suffix: str = "_l0") -> tuple[np.ndarray, np.ndarray]:
    """The inverse: ``nn.LSTM`` arrays -> ``(kernel, bias)`` of a ``BasicLSTMCell``."""
    w_ih, w_hh = np.asarray(state["weight_ih" + suffix]), np.asarray(state["weight_hh" + suffix])
    hidden = w_hh.shape[1]
    b = np.asarray(state.get("bias_ih" + suffix, 0)) + np.asarray(state.get("bias_hh" + suffix, 0))
    b = np.broadcast_to(b, (4 * hidden,)).astype(w_ih.dtype).copy()
    b[hidden:2 * hidden] -= forget_bias
    back = lambda a: np.concatenate([a[..., :hidden], a[..., 2 * hidden:3 * hidden],  # noqa: E731
                                     a[..., hidden:2 * hidden], a[..., 3 * hidden:]], axis=-1)
    return back(np.concatenate([w_ih.T, w_hh.T])), back(b)
