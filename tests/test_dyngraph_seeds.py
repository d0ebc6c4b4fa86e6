"""The seeds' PyTorch snippets run on dyngraph and print what PyTorch prints.

Each snippet below is copied verbatim from a seed in ``../shared/seeds`` (the
test checks that, when the seeds are there).  Before running, only the
damage the seeds' text extraction did is repaired, each repair named:

* ``while_colon``: the ``while (...)`` line lost its ``:``;
* ``newline_escape``: ``"is_leaf:\\n"`` became a real line break inside the
  string literal;
* ``split_line``: four statements were merged onto one line behind a comment;
* ``with_leaves``: the tutorial's later snippets reuse ``w`` and ``x`` from
  its first one, so that definition is prepended.

Then ``import torch`` becomes ``import dyngraph as torch``.  The expected
output is what PyTorch 2.13 printed for the same repaired snippet (object
addresses replaced by ``0x...``).
"""
from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"

LEAVES = """w = torch.tensor([1.], requires_grad=True) #由於需要計算梯度，所以requires_grad設置為True
x = torch.tensor([2.], requires_grad=True) #由於需要計算梯度，所以requires_grad設置為True
"""

GRAPH_BACKWARD = """import torch

w = torch.tensor([1.], requires_grad=True) #由於需要計算梯度，所以requires_grad設置為True
x = torch.tensor([2.], requires_grad=True) #由於需要計算梯度，所以requires_grad設置為True

a = torch.add(w, x) # a = w + x
b = torch.add(w, 1) # b = w + 1
y = torch.mul(a, b) # y = a * b

y.backward() #對y進行反向傳播
print(w.grad) #輸出w的梯度
"""

IS_LEAF = """import torch

a = torch.add(w, x) # a = w + x
b = torch.add(w, 1) # b = w + 1
y = torch.mul(a, b) # y = a * b

y.backward() #對y進行反向傳播
print(w.grad) #輸出w的梯度

#查看葉子結點
print("is_leaf:
", w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf) #輸出為True True False False False，只有前面兩個是葉子節點

#查看梯度
print("gradient:
", w.grad, x.grad, a.grad, b.grad, y.grad) #輸出為tensor([5.]) tensor([2.]) None None None，因為非葉子節點都被釋放掉了
"""

RETAIN_GRAD = """import torch

a = torch.add(w, x) # a = w + x
a.retain_grad() #保存非葉子結點a的梯度，輸出為tensor([5.]) tensor([2.]) tensor([2.]) None None
b = torch.add(w, 1) # b = w + 1
y = torch.mul(a, b) # y = a * b

y.backward() #對y進行反向傳播
print(w.grad) #輸出w的梯度

#查看葉子結點
print("is_leaf:
", w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)

#查看梯度
print("gradient:
", w.grad, x.grad, a.grad, b.grad, y.grad)
"""

GRAD_FN = """import torch

a = torch.add(w, x) # a = w + x
a.retain_grad()
b = torch.add(w, 1) # b = w + 1
y = torch.mul(a, b) # y = a * b

y.backward() #對y進行反向傳播
print(w.grad) #輸出w的梯度

# 查看 grad_fn
print("grad_fn:
", w.grad_fn, x.grad_fn, a.grad_fn, b.grad_fn, y.grad_fn)
"""

RNN_STEP = """W_h = torch.randn(20, 20, requires_grad=True) #先創建四個張量 W_x = torch.randn(20, 10, requires_grad=True) x = torch.randn(1, 10) prev_h = torch.randn(1, 20)

h2h = torch.mm(W_h, prev_h.t()) #將W_h和prev_h進行相乘，得到一個新張量h2h
i2h = torch.mm(W_x, x.t()) #將W_x和x進行相乘，等到一個新張量i2h
next_h = h2h + i2h #創建加法操作
next_h = next_h.tanh() #使用激活函數

loss = next_h.sum() #計算損失函數
loss.backward() #梯度反向傳播
"""

COUNTERS = """import torch
first_counter=torch.Tensor([0])
second_counter=torch.Tensor([10])
while(first_counter < second_counter)
    first_counter+=2
    second_counter+=1
print(first_counter)
print(second_counter)
"""

CHAIN = """import torch
# 定义输入张量
x = torch.tensor([2.0], requires_grad=True)
# 执行操作
y = (x + 2) * 3
# 计算梯度
y.backward()
# 打印梯度
print(x.grad)
"""

BRANCH = """import torch
## 定义输入张量
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
if x[0] > 0:
    y = x * 2
else:
    y = x + 1
y.backward(torch.tensor([1.0, 1.0, 1.0]))
print(x.grad)
"""


def while_colon(code: str) -> str:
    return re.sub(r"^(while\s*\(.*\))\s*$", r"\1:", code, flags=re.M)


def newline_escape(code: str) -> str:
    return re.sub(r'"(\w+):\n"', r'"\1:\\n"', code)


def split_line(code: str) -> str:
    return re.sub(r" (W_x|x|prev_h) = torch", r"\n\1 = torch", code, count=3)


def with_leaves(code: str) -> str:
    return code.replace("import torch\n", "import torch\n" + LEAVES, 1)


# (seed file, snippet as in the seed, repairs, what PyTorch printed)
CASES = {
    "graph_backward": ("000_ba2ba04892779487.txt", GRAPH_BACKWARD, [], "tensor([5.])\n"),
    "is_leaf": ("000_ba2ba04892779487.txt", IS_LEAF, [newline_escape, with_leaves],
                "tensor([5.])\nis_leaf:\n True True False False False\n"
                "gradient:\n tensor([5.]) tensor([2.]) None None None\n"),
    "retain_grad": ("000_ba2ba04892779487.txt", RETAIN_GRAD, [newline_escape, with_leaves],
                    "tensor([5.])\nis_leaf:\n True True False False False\n"
                    "gradient:\n tensor([5.]) tensor([2.]) tensor([2.]) None None\n"),
    "grad_fn": ("000_ba2ba04892779487.txt", GRAD_FN, [newline_escape, with_leaves],
                "tensor([5.])\ngrad_fn:\n None None <AddBackward0 object at 0x...> "
                "<AddBackward0 object at 0x...> <MulBackward0 object at 0x...>\n"),
    "rnn_step": ("000_ba2ba04892779487.txt", RNN_STEP, [split_line], ""),
    "counters": ("003_6e3e9b563febae4d.txt", COUNTERS, [while_colon],
                 "tensor([20.])\ntensor([20.])\n"),
    "chain": ("004_408dbdd616b4a993.txt", CHAIN, [], "tensor([3.])\n"),
    "branch": ("004_408dbdd616b4a993.txt", BRANCH, [], "tensor([2., 2., 2.])\n"),
}


def run(code: str, repairs) -> tuple[str, dict, list[str]]:
    """Run a repaired snippet: what it printed, its namespace, the warnings it raised."""
    for repair in repairs:
        code = repair(code)
    code = code.replace("import torch\n", "import dyngraph as torch\n")
    if "import dyngraph as torch" not in code:
        code = "import dyngraph as torch\n" + code
    out, namespace = io.StringIO(), {}
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, "<seed>", "exec"), namespace)
    return (re.sub(r"0x[0-9a-f]+", "0x...", out.getvalue()), namespace,
            [f"{w.category.__name__}: {w.message}" for w in caught])


# PyTorch warns (on stderr) each time a non-leaf's .grad is read without retain_grad()
NON_LEAF_READS = {"is_leaf": 3, "retain_grad": 2}


@pytest.mark.parametrize("name", sorted(CASES))
def test_seed_snippet_prints_what_pytorch_prints(name):
    _, code, repairs, expected = CASES[name]
    printed, _, caught = run(code, repairs)
    assert printed == expected
    assert len(caught) == NON_LEAF_READS.get(name, 0)
    assert all(w.startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf "
                            "Tensor is being accessed.") for w in caught)


@pytest.mark.parametrize("name", sorted(CASES))
def test_snippet_is_verbatim_from_its_seed(name):
    seed, code, _, _ = CASES[name]
    if not (SEEDS / seed).exists():
        pytest.skip("the seeds are not next to this checkout")
    assert code.strip() in (SEEDS / seed).read_text(encoding="utf-8")


def test_rnn_step_builds_gradients_of_the_right_shapes():
    _, ns, _ = run(RNN_STEP, [split_line])
    assert ns["W_h"].grad.shape == (20, 20) and ns["W_x"].grad.shape == (20, 10)
    assert ns["x"].grad is None and ns["loss"].grad_fn.name() == "SumBackward0"
    assert type(ns["next_h"].grad_fn).__name__ == "TanhBackward0"


def test_repairs_change_only_what_they_name():
    assert while_colon("while(a < b)\n    a+=1\n") == "while(a < b):\n    a+=1\n"
    assert newline_escape('print("is_leaf:\n", w)') == 'print("is_leaf:\\n", w)'
    assert split_line(RNN_STEP).splitlines()[1].startswith("W_x = torch.randn(20, 10")
