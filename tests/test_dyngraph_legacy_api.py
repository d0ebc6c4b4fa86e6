"""The legacy API old tutorials use, as PyTorch 2.13 has it: ``torch.FloatTensor`` & co.,
``torch.Tensor(...)``, ``x.type(...)``, ``torch.autograd.Variable``.

Every expected value, message and warning here is what PyTorch 2.13 gives for the same
expression (recorded in a scratch venv; PyTorch is not a test dependency).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngraph as torch
from dyngraph.autograd import Variable

NEW_SIGNATURES = (" * (torch.Storage storage)\n * (Tensor other)\n * (tuple of ints size, *, "
                  "torch.device device = None)\n * (object data, *, torch.device device = None)\n")


def _combination(got: str, why: str) -> str:
    return (f"new() received an invalid combination of arguments - got ({got}), but expected one "
            f"of:\n * (*, torch.device device = None)\n      didn't match because {why}\n"
            + NEW_SIGNATURES)


def _options(dtype: str) -> str:
    return (f"TensorOptions(dtype={dtype}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


VALUES = [
    ("torch.FloatTensor()", "tensor([])"),
    ("torch.FloatTensor([1, 2])", "tensor([1., 2.])"),
    ("torch.LongTensor([[1, 2], [3, 4]])", "tensor([[1, 2],\n        [3, 4]])"),
    ("torch.FloatTensor(np.array([1, 2]))", "tensor([1., 2.])"),
    ("torch.BoolTensor([1, 0])", "tensor([ True, False])"),
    ("torch.ByteTensor([1, 2])", "tensor([1, 2], dtype=torch.uint8)"),
    ("torch.HalfTensor([1.5])", "tensor([1.5000], dtype=torch.float16)"),
    ("torch.CharTensor([1])", "tensor([1], dtype=torch.int8)"),
    ("torch.ShortTensor([1])", "tensor([1], dtype=torch.int16)"),
    ("torch.IntTensor([1])", "tensor([1], dtype=torch.int32)"),
    ("torch.DoubleTensor([1])", "tensor([1.], dtype=torch.float64)"),
    ("torch.LongTensor(torch.tensor([1, 2]))", "tensor([1, 2])"),
    ("torch.LongTensor([1.5])", "tensor([1])"),
    ("torch.LongTensor([1.7, -2.7])", "tensor([ 1, -2])"),
    ("torch.LongTensor(np.array([1.5]))", "tensor([1])"),
    ("torch.LongTensor([True, False])", "tensor([1, 0])"),
    ("torch.BoolTensor([2, 0])", "tensor([ True, False])"),
    ("torch.FloatTensor((2, 3))", "tensor([2., 3.])"),             # a tuple is data...
    ("torch.FloatTensor(torch.Size([2, 3])).shape", "torch.Size([2, 3])"),  # ...a Size a size
    ("torch.FloatTensor(0)", "tensor([])"),
    ("torch.FloatTensor([1, 2], device='cpu')", "tensor([1., 2.])"),
    ("torch.FloatTensor(2, 3, device='cpu').shape", "torch.Size([2, 3])"),
    ("torch.IntTensor(2, 3).dtype", "torch.int32"),
    ("torch.LongTensor(2, 3).shape", "torch.Size([2, 3])"),
    ("torch.LongTensor(2, 3).dtype", "torch.int64"),
    ("torch.Tensor(torch.tensor([1, 2]))", "tensor([1, 2])"),     # torch.Tensor: any dtype
    ("torch.Tensor(torch.Size([2])).shape", "torch.Size([2])"),
    ("torch.Tensor(2, 3).dtype", "torch.float32"),
    ("torch.Tensor([1, 2])", "tensor([1., 2.])"),
    ("t.type()", "'torch.FloatTensor'"),
    ("t.type(torch.LongTensor)", "tensor([1, 2])"),
    ("t.type('torch.LongTensor')", "tensor([1, 2])"),
    ("t.type(torch.float64)", "tensor([1., 2.], dtype=torch.float64)"),
    ("t.type(torch.IntTensor).type()", "'torch.IntTensor'"),
    ("t.type(dtype='torch.DoubleTensor')", "tensor([1., 2.], dtype=torch.float64)"),
    ("torch.FloatTensor.dtype, torch.FloatTensor.is_sparse, torch.FloatTensor.is_cuda",
     "(torch.float32, False, False)"),
    ("torch.FloatTensor, type(torch.LongTensor).__name__, torch.FloatTensor.__name__",
     "(<class 'torch.FloatTensor'>, 'tensortype', 'FloatTensor')"),
]


@pytest.mark.parametrize("expr, expected", VALUES)
def test_legacy_constructors_and_type(expr, expected):
    t = torch.tensor([1., 2.])
    assert repr(eval(expr, {"torch": torch, "np": np, "t": t})) == expected


ERRORS = [
    ("torch.FloatTensor('a')", TypeError, "new(): invalid data type 'str'"),
    ("torch.FloatTensor(2.5)", TypeError, "new(): data must be a sequence (got float)"),
    ("torch.FloatTensor(None)", TypeError, "new(): data must be a sequence (got NoneType)"),
    ("torch.FloatTensor(np.float64(2.0))", TypeError,
     "new(): data must be a sequence (got numpy.float64)"),
    ("torch.FloatTensor(2, 'a')", TypeError, "new(): argument 'size' failed to unpack the object "
     "at pos 2 with error \"type must be tuple of ints,but got str\""),
    ("torch.FloatTensor(2, None)", TypeError, "new(): argument 'size' failed to unpack the object "
     "at pos 2 with error \"type must be tuple of ints,but got NoneType\""),
    ("torch.FloatTensor(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    ("torch.Tensor(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    ("torch.FloatTensor([1], [2])", TypeError, _combination(
        "list, list", "some of the arguments have invalid types: (!list of [int]!, !list of [int]!)")),
    ("torch.FloatTensor([1, 2.5], [1])", TypeError, _combination(
        "list, list",
        "some of the arguments have invalid types: (!list of [int, float]!, !list of [int]!)")),
    ("torch.FloatTensor([1, 2], 3)", TypeError, _combination(
        "list, int", "some of the arguments have invalid types: (!list of [int, int]!, !int!)")),
    ("torch.FloatTensor(t, t)", TypeError, _combination(
        "Tensor, Tensor", "some of the arguments have invalid types: (!Tensor!, !Tensor!)")),
    ("torch.FloatTensor(torch.Size([2]), 3)", TypeError, _combination(
        "torch.Size, int", "some of the arguments have invalid types: (!torch.Size of (int,)!, !int!)")),
    ("torch.FloatTensor(2, dtype=torch.float64)", TypeError, _combination(
        "int, dtype=torch.dtype", "some of the keywords were incorrect: dtype")),
    ("torch.Tensor(2, dtype=torch.float64)", TypeError, _combination(
        "int, dtype=torch.dtype", "some of the keywords were incorrect: dtype")),
    ("torch.LongTensor(t)", TypeError, f"expected {_options('long int')} (got {_options('float')})"),
    ("torch.FloatTensor(torch.tensor([1, 2]))", TypeError,
     f"expected {_options('float')} (got {_options('long int')})"),
    ("torch.FloatTensor(t, device='cpu')", RuntimeError,
     "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is not supported.  "
     "Use torch.tensor(...) or torch.as_tensor(...) instead."),
    ("torch.Tensor([[1, 2], [3]])", ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ("torch.LongTensor([[1, 2], [3]])", ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ("t.type('torch.FooTensor')", ValueError, "invalid type: 'torch.FooTensor'"),
    ("t.type('float')", ValueError, "invalid type: 'float'"),
    ("t.type(3)", TypeError, "dtype must be a type, str, or dtype object"),
]


@pytest.mark.parametrize("expr, kind, message", ERRORS)
def test_legacy_constructor_errors(expr, kind, message):
    t = torch.tensor([1., 2.])
    with pytest.raises(kind) as info:
        eval(expr, {"torch": torch, "np": np, "t": t})
    assert str(info.value) == message


def test_legacy_types_are_isinstance_tests_on_dtype_not_classes():
    t = torch.tensor([1., 2.])
    assert isinstance(t, torch.FloatTensor) and not isinstance(t, torch.DoubleTensor)
    assert isinstance(torch.tensor(1), torch.LongTensor)
    assert isinstance(torch.nn.Parameter(torch.zeros(2)), torch.FloatTensor)
    assert not isinstance(3, torch.FloatTensor)
    assert not issubclass(torch.FloatTensor, torch.Tensor)
    made = torch.FloatTensor([1, 2])
    assert type(made) is torch.Tensor and not made.requires_grad


def test_legacy_constructor_shares_and_aliases_as_pytorch():
    n = np.array([1., 2.], dtype=np.float32)
    shared = torch.FloatTensor(n)
    n[0] = 9
    assert shared.tolist() == [9., 2.]                # an array of the type's dtype is shared
    n64 = np.array([1., 2.])
    copied = torch.FloatTensor(n64)
    n64[0] = 9
    assert copied.tolist() == [1., 2.]
    t = torch.zeros(2)
    alias = torch.FloatTensor(t)
    alias[0] = 1
    assert t.tolist() == [1., 0.] and t._version == 1  # FloatTensor(t) is t.alias()
    x = torch.ones(2, requires_grad=True)
    a = torch.Tensor(x)
    assert a.requires_grad and type(a.grad_fn).__name__ == "AliasBackward0"
    a.sum().backward()
    assert x.grad.tolist() == [1., 1.]
    t = torch.tensor([1.])
    assert t.type(torch.FloatTensor) is t and t.type("torch.FloatTensor") is t


def test_variable_returns_a_tensor_as_pytorch_2():
    t = torch.tensor([1., 2.])
    v = Variable(t)
    assert type(v) is torch.Tensor and v is not t and not v.requires_grad
    v = Variable(t, requires_grad=True)
    assert v.requires_grad and v.is_leaf and not t.requires_grad
    assert isinstance(t, Variable) and not isinstance(3, Variable)
    assert type(Variable).__name__ == "VariableMeta"
    x = torch.ones(2, requires_grad=True)
    y = Variable(x * 2)
    assert (y.requires_grad, y.is_leaf, y.grad_fn) == (False, True, None)
    assert Variable(x * 2, requires_grad=True).is_leaf
    z = torch.zeros(2)
    Variable(z)[0] = 5
    assert z.tolist() == [5., 0.] and z._version == 1   # same memory and version counter
    with torch.no_grad():
        assert Variable(z, requires_grad=True).requires_grad
    assert repr(Variable()) == "tensor([])"
    w = Variable(torch.ones(3), requires_grad=True)
    (w * w).sum().backward()
    assert w.grad.tolist() == [2., 2., 2.]
    from dyngraph.autograd.variable import Variable as same
    assert same is Variable


def test_variable_volatile_warns_and_bad_calls_raise():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = Variable(torch.zeros(2), volatile=True)
    assert [(w.category, str(w.message), w.filename) for w in caught] == [
        (UserWarning, "volatile was removed and now has no effect. Use `with torch.no_grad():` "
         "instead.", __file__)]
    assert not v.requires_grad
    with pytest.raises(TypeError, match=r"^Variable data has to be a tensor, but got list$"):
        Variable([1, 2])
    with pytest.raises(RuntimeError, match=r"^Only Tensors of floating point and complex dtype "
                                           r"can require gradients$"):
        Variable(torch.tensor([1, 2]), requires_grad=True)
    with pytest.warns(UserWarning), pytest.raises(
            ValueError, match=r"^Variable can't be volatile and require_grad at the same time!$"):
        Variable(torch.zeros(1), True, True)
    with pytest.raises(TypeError, match=r"^'foo' is an invalid keyword argument for this function$"):
        Variable(torch.zeros(1), requires_grad=True, foo=1)


def test_tensor_new_is_the_legacy_constructor_with_the_tensors_dtype():
    x = torch.zeros(2, dtype=torch.float64)
    assert x.new(2, 3).dtype is torch.float64 and x.new(2, 3).shape == (2, 3)
    assert repr(x.new([1, 2])) == "tensor([1., 2.], dtype=torch.float64)"
    assert repr(x.new()) == "tensor([], dtype=torch.float64)"
    assert x.new(torch.Size([2])).shape == (2,)
    alias = x.new(x)
    assert alias is not x and np.shares_memory(alias.numpy(), x.numpy())
    with pytest.raises(TypeError) as info:
        x.new(torch.tensor([1, 2]))
    assert str(info.value) == f"expected {_options('double')} (got {_options('long int')})"
    with pytest.raises(TypeError, match=r"^new\(\) received an invalid combination of arguments - "
                                        r"got \(list, dtype=torch\.dtype\)"):
        x.new([1], dtype=torch.float32)
