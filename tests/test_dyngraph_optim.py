"""dyngraph's optimizers and schedulers against PyTorch 2.13's, step for step (issue #29,
item 2).

``tests/fixtures/torch_optim.npz`` holds what ``tests/fixtures/record_torch_optim.py`` saw
PyTorch do (cases in ``tests/torch_optim_cases.py``): for the gradient-driven optimizers the
gradient and the parameters at every step, and the ``state_dict()`` halfway; for LBFGS the
loss and parameters after each closure-driven step on a smooth function; for the schedulers
(``tests/fixtures/torch_schedulers.json``) each step's rates and momenta and the final state
dict.  Constructor defaults, refusals, warnings and their messages are PyTorch's, recorded
below as literals.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import dyngraph as torch
from tests.torch_optim_cases import (CASES, LBFGS_CASES, LBFGS_STEPS, SAVE_AT,
                                     SCHEDULER_CASES, SCHEDULER_SAVE_AT, SCHEDULER_STEPS, STEPS,
                                     _sgd, bowl_closure, data, lbfgs_start, render,
                                     run_scheduler)

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "torch_optim.npz")
TOL = dict(rtol=1e-6, atol=1e-6)


def _params(values) -> list:
    return [torch.nn.Parameter(torch.tensor(v)) for v in values]


def _split(flat: np.ndarray, like: list) -> list[np.ndarray]:
    out, offset = [], 0
    for p in like:
        n = p.numel()
        out.append(flat[offset:offset + n].reshape(tuple(p.shape)))
        offset += n
    return out


def _flat(params) -> np.ndarray:
    return np.concatenate([p.detach().numpy().ravel() for p in params])


def _optimizer(name: str, params: list, **override):
    cls, kwargs = CASES[name]
    return getattr(torch.optim, cls)([{"params": params[:2]}, {"params": params[2:]}],
                                     **{**kwargs, **override})


def _replay(name: str, opt, params: list, steps: range) -> None:
    """Feed PyTorch's recorded gradients for ``steps``; after each, the parameters must be
    PyTorch's."""
    grads, expected = FIXTURE[f"{name}/grads"], FIXTURE[f"{name}/params"]
    for k in steps:
        for p, g in zip(params, _split(grads[k], params)):
            p.grad = torch.tensor(g)
        opt.step()
        np.testing.assert_allclose(_flat(params), expected[k], **TOL, err_msg=f"step {k}")


def _from_json(value):
    if isinstance(value, dict) and set(value) == {"tuple"}:
        return tuple(_from_json(v) for v in value["tuple"])
    return value


def _torch_state_dict(name: str) -> dict:
    """The state dict PyTorch's optimizer gave at step ``SAVE_AT``, rebuilt with dyngraph
    tensors: its structure as PyTorch has it."""
    saved = json.loads(str(FIXTURE[f"{name}/saved"]))
    groups = [{k: _from_json(v) for k, v in g.items()} for g in saved["param_groups"]]
    state = {int(i): {key: torch.tensor(FIXTURE[f"{name}/state/{i}/{key}"]) for key in keys}
             for i, keys in saved["state"].items()}
    return {"state": state, "param_groups": groups}


@pytest.mark.parametrize("name", CASES)
def test_each_update_is_pytorchs(name):
    params = _params(data()[2])
    _replay(name, _optimizer(name, params), params, range(STEPS))


@pytest.mark.parametrize("name", CASES)
def test_state_dict_is_pytorchs(name):
    """Same options in the groups (key order too), same state keys in the same order, values
    within the tolerance."""
    params = _params(data()[2])
    opt = _optimizer(name, params)
    _replay(name, opt, params, range(SAVE_AT))
    mine, theirs = opt.state_dict(), _torch_state_dict(name)
    assert [list(g) for g in mine["param_groups"]] == [list(g) for g in theirs["param_groups"]]
    assert mine["param_groups"] == theirs["param_groups"]
    assert list(mine["state"]) == list(theirs["state"])
    for i, state in theirs["state"].items():
        assert list(mine["state"][i]) == list(state)
        for key, value in state.items():
            assert mine["state"][i][key].dtype == value.dtype, key
            np.testing.assert_allclose(mine["state"][i][key].numpy(), value.numpy(), **TOL)


@pytest.mark.parametrize("name", CASES)
def test_a_pytorch_state_dict_loads_and_training_continues_as_in_pytorch(name):
    """A fresh optimizer built with the default options takes PyTorch's options and state
    from its state dict, then makes PyTorch's next steps."""
    params = _params(_split(FIXTURE[f"{name}/params"][SAVE_AT - 1], _params(data()[2])))
    cls = CASES[name][0]
    opt = getattr(torch.optim, cls)([{"params": params[:2]}, {"params": params[2:]}])
    opt.load_state_dict(_torch_state_dict(name))
    _replay(name, opt, params, range(SAVE_AT, STEPS))


@pytest.mark.parametrize("name", CASES)
def test_own_state_dict_round_trips_through_save_and_load(name, tmp_path):
    """Saved with ``torch.save`` halfway, loaded into a new optimizer over copies of the
    parameters: both go on to the same bits."""
    params = _params(data()[2])
    opt = _optimizer(name, params)
    _replay(name, opt, params, range(SAVE_AT))
    torch.save(opt.state_dict(), tmp_path / "opt.pt")
    copies = _params([p.detach().numpy().copy() for p in params])
    other = _optimizer(name, copies, lr=123.0)       # options come from the state dict
    other.load_state_dict(torch.load(tmp_path / "opt.pt"))
    _replay(name, opt, params, range(SAVE_AT, STEPS))
    _replay(name, other, copies, range(SAVE_AT, STEPS))
    np.testing.assert_array_equal(_flat(copies), _flat(params))


# --- LBFGS ------------------------------------------------------------------------------------

def _lbfgs_run(kwargs: dict, params: list, steps: int):
    opt = torch.optim.LBFGS(params, **kwargs)
    closure = bowl_closure(torch, opt, params)
    return opt, closure, [opt.step(closure).item() for _ in range(steps)]


@pytest.mark.parametrize("name", LBFGS_CASES)
def test_lbfgs_steps_are_pytorchs(name):
    kwargs, dtype = LBFGS_CASES[name]
    params = _params(lbfgs_start(dtype))
    losses = []
    opt = torch.optim.LBFGS(params, **kwargs)
    closure = bowl_closure(torch, opt, params)
    for k in range(LBFGS_STEPS):
        losses.append(opt.step(closure).item())
        np.testing.assert_allclose(_flat(params), FIXTURE[f"{name}/params"][k], **TOL)
    np.testing.assert_allclose(losses, FIXTURE[f"{name}/losses"], **TOL)
    saved = json.loads(str(FIXTURE[f"{name}/saved"]))
    sd = opt.state_dict()
    assert sd["param_groups"] == saved["param_groups"]
    assert sorted(sd["state"]) == saved["state_keys"]
    state = sd["state"][0]
    assert {k: [type(v).__name__, len(v) if isinstance(v, list) else None]
            for k, v in state.items()} == saved["summary"]
    assert (state["func_evals"], state["n_iter"]) == (saved["func_evals"], saved["n_iter"])


@pytest.mark.parametrize("name", LBFGS_CASES)
def test_lbfgs_state_dict_round_trips(name, tmp_path):
    kwargs, dtype = LBFGS_CASES[name]
    params = _params(lbfgs_start(dtype))
    opt, closure, _ = _lbfgs_run(kwargs, params, 2)
    torch.save(opt.state_dict(), tmp_path / "lbfgs.pt")
    copies = _params([p.detach().numpy().copy() for p in params])
    other, other_closure, _ = _lbfgs_run(dict(lr=9.0), copies, 0)
    other.load_state_dict(torch.load(tmp_path / "lbfgs.pt"))
    assert other.param_groups[0]["lr"] == kwargs.get("lr", 1)
    for _ in range(2):
        assert opt.step(closure).item() == other.step(other_closure).item()
    np.testing.assert_array_equal(_flat(copies), _flat(params))


def test_lbfgs_refuses_groups_and_needs_a_closure():
    a, b = _params([np.ones(2, np.float32), np.ones(1, np.float32)])
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options "
                                         r"\(parameter groups\)$"):
        torch.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'closure'"):
        torch.optim.LBFGS([a]).step()


@pytest.mark.parametrize("failure", ["line search name", "closure"])
def test_a_failing_lbfgs_step_changes_nothing(failure):
    """PyTorch raises ``only 'strong_wolfe' is supported`` after its first closure call, and
    leaves parameters moved by a closure that fails mid-search; here both leave the
    parameters and the state as they were before the step."""
    params = _params(lbfgs_start())
    opt, closure, _ = _lbfgs_run(dict(line_search_fn="strong_wolfe", max_iter=3), params, 1)
    before, state = _flat(params), opt.state_dict()["state"]
    calls = []

    def failing():
        calls.append(1)
        if len(calls) == 3:
            raise ArithmeticError("closure failed")
        return closure()

    if failure == "closure":
        with pytest.raises(ArithmeticError, match="closure failed"):
            opt.step(failing)
    else:
        opt.param_groups[0]["line_search_fn"] = "backtracking"
        with pytest.raises(RuntimeError, match=r"^only 'strong_wolfe' is supported$"):
            opt.step(closure)
    np.testing.assert_array_equal(_flat(params), before)
    after = opt.state_dict()["state"]
    assert after[0]["n_iter"] == state[0]["n_iter"]
    assert after[0]["func_evals"] == state[0]["func_evals"]
    np.testing.assert_array_equal(after[0]["d"].numpy(), state[0]["d"].numpy())


def test_a_loaded_lbfgs_state_of_the_wrong_size_is_refused():
    params = _params(lbfgs_start())
    opt, _, _ = _lbfgs_run(LBFGS_CASES["LBFGS"][0], params, 1)
    sd = opt.state_dict()
    sd["state"][0]["d"] = torch.zeros(4)
    with pytest.raises(ValueError, match=r"loaded state dict has d .*; expected a tensor of "
                                         r"the 5 parameters' values"):
        torch.optim.LBFGS(_params(lbfgs_start())).load_state_dict(sd)


# --- constructors: PyTorch's defaults, keyword arguments and refusals ---------------------------

DEFAULTS = {   # torch.optim.X([w]).defaults under PyTorch 2.13
    "SGD": {"lr": 0.001, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False,
            "maximize": False, "foreach": None, "differentiable": False, "fused": None},
    "Adam": {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
             "amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
             "differentiable": False, "fused": None, "decoupled_weight_decay": False},
    "AdamW": {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0.01,
              "amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
              "differentiable": False, "fused": None, "decoupled_weight_decay": True},
    "RMSprop": {"lr": 0.01, "momentum": 0, "alpha": 0.99, "eps": 1e-08, "centered": False,
                "weight_decay": 0, "capturable": False, "foreach": None, "maximize": False,
                "differentiable": False},
    "Adagrad": {"lr": 0.01, "lr_decay": 0, "eps": 1e-10, "weight_decay": 0,
                "initial_accumulator_value": 0, "foreach": None, "maximize": False,
                "differentiable": False, "fused": None},
    "Adadelta": {"lr": 1.0, "rho": 0.9, "eps": 1e-06, "weight_decay": 0, "maximize": False,
                 "capturable": False, "foreach": None, "differentiable": False},
    "Adamax": {"lr": 0.002, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
               "foreach": None, "maximize": False, "differentiable": False, "capturable": False},
    "NAdam": {"lr": 0.002, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
              "momentum_decay": 0.004, "decoupled_weight_decay": False, "maximize": False,
              "foreach": None, "capturable": False, "differentiable": False},
    "RAdam": {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
              "maximize": False, "foreach": None, "capturable": False,
              "decoupled_weight_decay": False, "differentiable": False},
    "ASGD": {"lr": 0.01, "lambd": 0.0001, "alpha": 0.75, "t0": 1000000.0, "weight_decay": 0,
             "foreach": None, "maximize": False, "differentiable": False, "capturable": False},
    "Rprop": {"lr": 0.01, "etas": (0.5, 1.2), "step_sizes": (1e-06, 50), "foreach": None,
              "maximize": False, "differentiable": False, "capturable": False},
    "LBFGS": {"lr": 1, "max_iter": 20, "max_eval": 25, "tolerance_grad": 1e-07,
              "tolerance_change": 1e-09, "history_size": 100, "line_search_fn": None},
}


@pytest.mark.parametrize("cls", DEFAULTS)
def test_defaults_are_pytorchs_in_its_order(cls):
    defaults = getattr(torch.optim, cls)(_params([np.ones(2, np.float32)])).defaults
    assert list(defaults.items()) == list(DEFAULTS[cls].items())


REFUSED = [   # (constructor call, exception type, PyTorch 2.13's message)
    ("SGD", dict(lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
    ("SGD", dict(momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
    ("SGD", dict(momentum=0.9, dampening=0.1, nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    ("SGD", dict(fused=True, foreach=True), RuntimeError,
     "`fused` and `foreach` cannot be `True` together."),
    ("Adam", dict(fused=True, differentiable=True), RuntimeError,
     "`fused` does not support `differentiable`"),
    ("Adagrad", dict(fused=True, foreach=True), RuntimeError,
     "`fused` and `foreach` cannot be `True` together."),
    ("Adadelta", dict(lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
    ("Adadelta", dict(rho=1.5), ValueError, "Invalid rho value: 1.5"),
    ("Adadelta", dict(eps=-1.0), ValueError, "Invalid epsilon value: -1.0"),
    ("Adamax", dict(betas=(0.9, 1.0)), ValueError, "Invalid beta parameter at index 1: 1.0"),
    ("Adamax", dict(weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    ("NAdam", dict(momentum_decay=-0.1), ValueError, "Invalid momentum_decay value: -0.1"),
    ("NAdam", dict(betas=(-0.1, 0.9)), ValueError, "Invalid beta parameter at index 0: -0.1"),
    ("RAdam", dict(eps=-1e-8), ValueError, "Invalid epsilon value: -1e-08"),
    ("ASGD", dict(lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
    ("ASGD", dict(weight_decay=-0.1), ValueError, "Invalid weight_decay value: -0.1"),
    ("Rprop", dict(etas=(1.5, 1.2)), ValueError, "Invalid eta values: 1.5, 1.2"),
    ("Rprop", dict(etas=(0.5, 0.9)), ValueError, "Invalid eta values: 0.5, 0.9"),
    ("LBFGS", dict(lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
    ("RMSprop", dict(fused=True), TypeError, "got an unexpected keyword argument 'fused'"),
    ("Adadelta", dict(fused=True), TypeError, "got an unexpected keyword argument 'fused'"),
    ("SGD", dict(capturable=True), TypeError, "got an unexpected keyword argument 'capturable'"),
]


@pytest.mark.parametrize("cls, kwargs, error, message", REFUSED)
def test_constructor_refusals_are_pytorchs(cls, kwargs, error, message):
    with pytest.raises(error) as info:
        getattr(torch.optim, cls)(_params([np.ones(2, np.float32)]), **kwargs)
    assert message in str(info.value)


STEP_REFUSED = [   # what PyTorch 2.13's CPU step does with these flags
    ("Adam", "capturable", AssertionError, "If capturable=True, params and state_steps must be "
     "on supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']."),
    ("Adadelta", "capturable", AssertionError, "If capturable=True, params and state_steps must "
     "be on supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone']."),
    ("NAdam", "capturable", AssertionError, "If capturable=True, params, mu_products and "
     "state_steps must be on supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', "
     "'xla']."),
    ("ASGD", "capturable", AssertionError, "If capturable=True, params, mus, etas, and "
     "state_steps must be on supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', "
     "'xla']."),
    ("Rprop", "differentiable", RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    ("SGD", "differentiable", RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
]


@pytest.mark.parametrize("cls, flag, error, message", STEP_REFUSED)
def test_step_refuses_cpu_flags_as_pytorch_and_changes_nothing(cls, flag, error, message):
    """PyTorch's exception and words; beyond PyTorch (which has created the state by then),
    the refused step leaves no state behind."""
    (w,) = _params([np.ones(2, np.float32)])
    opt = getattr(torch.optim, cls)([w], **{flag: True})
    opt.step()                                        # no gradient yet: nothing to refuse
    w.grad = torch.ones(2)
    with pytest.raises(error) as info:
        opt.step()
    assert str(info.value) == message
    assert w.tolist() == [1.0, 1.0] and not opt.state


def test_differentiable_updates_a_tensor_that_does_not_require_grad():
    """PyTorch's differentiable step only fails on a leaf that requires grad."""
    w = torch.ones(2)
    w.grad = torch.tensor([0.5, -0.5])
    torch.optim.SGD([w], lr=0.1, differentiable=True).step()
    assert w.tolist() == pytest.approx([0.95, 1.05])


def test_options_save_with_foreach_and_fused_as_given():
    w = _params([np.ones(2, np.float32)])
    opt = torch.optim.Adam(w, foreach=False, fused=True)
    group = opt.state_dict()["param_groups"][0]
    assert (group["foreach"], group["fused"]) == (False, True)


def test_lbfgs_closure_may_return_a_python_number():
    """As in PyTorch, which takes ``float(closure())`` and returns the first call's value."""
    (w,) = _params([np.array([3.0], np.float32)])
    opt = torch.optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((w - 1.0) ** 2).sum()
        loss.backward()
        return loss.item()

    assert opt.step(closure) == 4.0
    assert abs(w.item() - 1.0) < 1e-6


# --- schedulers -----------------------------------------------------------------------------

SCHEDULES = json.loads((Path(__file__).parent / "fixtures" / "torch_schedulers.json").read_text())


def _two_params() -> list:
    return [torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(1))]


@pytest.mark.parametrize("name", SCHEDULER_CASES)
def test_schedule_is_pytorchs_step_for_step(name):
    """Every group's lr and momentum (or beta1) and ``get_last_lr()`` after each step, then
    the state dict: PyTorch's keys, PyTorch's values."""
    _, sched, rows = run_scheduler(name, torch.optim, _two_params())
    assert rows == SCHEDULES[name]["rows"]
    assert render(sched.state_dict()) == SCHEDULES[name]["state_dict"]


@pytest.mark.parametrize("name", SCHEDULER_CASES)
def test_schedule_resumes_from_a_saved_state_dict(name, tmp_path):
    """Optimizer and scheduler saved halfway with ``torch.save`` and loaded into new ones
    (built as at the start, as a resuming program builds them) go on as the first run did."""
    opt, sched, _ = run_scheduler(name, torch.optim, _two_params(),
                                  steps=range(SCHEDULER_SAVE_AT))
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()},
               tmp_path / "ckpt.pt")
    make_opt, make_sched, _ = SCHEDULER_CASES[name]
    opt2 = make_opt(torch.optim, _two_params())
    sched2 = make_sched(torch.optim.lr_scheduler, opt2)
    checkpoint = torch.load(tmp_path / "ckpt.pt")
    opt2.load_state_dict(checkpoint["optimizer"])
    sched2.load_state_dict(checkpoint["scheduler"])
    _, _, rows = run_scheduler(name, torch.optim, None,
                               steps=range(SCHEDULER_SAVE_AT, SCHEDULER_STEPS),
                               made=(opt2, sched2))
    assert rows == SCHEDULES[name]["rows"][SCHEDULER_SAVE_AT:]


def _warnings_of(action) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [str(w.message) for w in caught]


ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
    "value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")


def test_scheduler_step_before_optimizer_step_warns_as_pytorch_once():
    opt = torch.optim.SGD(_two_params(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)
    assert _warnings_of(sched.step) == [ORDER_WARNING]
    assert _warnings_of(sched.step) == []              # only the first step is checked
    opt2 = torch.optim.SGD(_two_params(), lr=0.1)
    sched2 = torch.optim.lr_scheduler.ExponentialLR(opt2, 0.5)
    assert _warnings_of(lambda: (opt2.step(), sched2.step())) == []


def test_an_optimizer_step_replaced_after_the_scheduler_is_warned_about():
    opt = torch.optim.SGD(_two_params(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)
    opt.step = lambda closure=None: None
    assert _warnings_of(sched.step) == [
        "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
        "initialization. Please, make sure to call `optimizer.step()` before "
        "`lr_scheduler.step()`. See more details at "
        "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"]


def test_step_with_an_epoch_and_get_lr_outside_step_warn_as_pytorch():
    opt = torch.optim.SGD(_two_params(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)
    opt.step()
    messages = _warnings_of(lambda: sched.step(5))
    assert len(messages) == 1 and messages[0].startswith(
        "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated")
    assert sched.get_last_lr() == [0.025]        # the closed form at epoch 5
    assert _warnings_of(sched.get_lr) == [
        "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."]


SCHEDULER_REFUSED = [   # (scheduler call, exception type, PyTorch 2.13's message)
    (lambda s, o: s.ConstantLR(o, factor=1.5), ValueError,
     "Constant multiplicative factor expected to be between 0 and 1."),
    (lambda s, o: s.LinearLR(o, end_factor=1.5), ValueError,
     "Ending multiplicative factor expected to be between 0 and 1."),
    (lambda s, o: s.MultiplicativeLR(o, 0.9), TypeError,
     "lr_lambda should be a function, but got float"),
    (lambda s, o: s.CyclicLR(o, 0.01, 0.1, mode="sawtooth"), ValueError,
     "mode is invalid and scale_fn is None"),
    (lambda s, o: s.CyclicLR(o, [0.01], 0.1), ValueError,
     "base_lr must have the same length as optimizer.param_groups. base_lr has 1 values, "
     "param_groups has 2."),
    (lambda s, o: s.CyclicLR(s_adagrad(o), 0.01, 0.1), ValueError,
     "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"),
    (lambda s, o: s.ChainedScheduler([]), ValueError,
     "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler."),
    (lambda s, o: s.SequentialLR(o, [s.ReduceLROnPlateau(o)], []), ValueError,
     "SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires additional "
     "kwargs to be specified when calling `step`, but got one at index 0 in the given "
     "schedulers sequence."),
    (lambda s, o: s.OneCycleLR(o, 1.0, total_steps=10, pct_start=1), ValueError,
     "Expected float between 0 and 1 pct_start, but got 1"),
    (lambda s, o: s.OneCycleLR(o, 1.0, epochs=0, steps_per_epoch=3), ValueError,
     "Expected positive integer epochs, but got 0"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, 2, eta_min="0"), ValueError,
     "Expected float or int eta_min, but got 0 of type <class 'str'>"),
    (lambda s, o: s.ReduceLROnPlateau(o, min_lr=[0.1]), ValueError, "expected 2 min_lrs, got 1"),
]


def s_adagrad(opt):
    return torch.optim.Adagrad(opt.param_groups[0]["params"])


@pytest.mark.parametrize("make, error, message", SCHEDULER_REFUSED)
def test_scheduler_refusals_are_pytorchs(make, error, message):
    opt = _sgd(torch.optim, _two_params())
    with pytest.raises(error) as info:
        make(torch.optim.lr_scheduler, opt)
    assert str(info.value) == message


def test_warm_restarts_refuse_a_negative_epoch():
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _sgd(torch.optim, _two_params()), 2)
    with pytest.raises(ValueError, match=r"^Expected non-negative epoch, but got -1$"):
        sched.step(-1)


def test_named_parameters_give_param_names_as_in_pytorch():
    m = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(m.named_parameters(), lr=0.1)
    assert opt.state_dict()["param_groups"] == [
        {"param_names": ["weight", "bias"], "lr": 0.1, "momentum": 0, "dampening": 0,
         "weight_decay": 0, "nesterov": False, "maximize": False, "foreach": None,
         "differentiable": False, "fused": None, "params": [0, 1]}]
    assert list(opt.param_groups[0])[:2] == ["params", "param_names"]
    with pytest.raises(ValueError, match=r"^all optimizer param groups should be with/without "
                                         r"names. cannot add param group without names to the "
                                         r"optimizer$"):
        opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))]})
    with pytest.raises(ValueError, match=r"^all optimizer params should be with/without names. "
                                         r"Some param names are missing$"):
        torch.optim.SGD([("w", m.weight), m.bias])
    with pytest.raises(TypeError, match=r"^optimizer parameters need to be organized in ordered "
                                        r"collections"):
        torch.optim.SGD([{"params": {m.weight}}])


def test_resumed_schedules_do_not_change_the_rate_when_built_as_pytorch():
    """Built with ``last_epoch >= 0`` (resuming), a schedule's first step is PyTorch's
    "initial" one: recorded under PyTorch 2.13, lr after construction then four steps."""
    S = torch.optim.lr_scheduler
    cases = [(lambda o: S.ExponentialLR(o, 0.9, last_epoch=3), [0.3, 0.27, 0.243, 0.2187, 0.19683]),
             (lambda o: S.LinearLR(o, 0.5, total_iters=4, last_epoch=2),
              [0.3, 0.3428571429, 0.3428571429, 0.3428571429, 0.3428571429]),
             (lambda o: S.CosineAnnealingLR(o, 5, last_epoch=2),
              [0.3, 0.0829179607, 0.0, 0.0954915028, 0.3454915028]),
             (lambda o: S.PolynomialLR(o, 6, last_epoch=1), [0.3, 0.225, 0.15, 0.075, 0.0]),
             (lambda o: S.StepLR(o, 2, last_epoch=3), [0.03, 0.03, 0.003, 0.003, 0.0003]),
             (lambda o: S.MultiplicativeLR(o, lambda e: 0.5, last_epoch=1),
              [0.3, 0.15, 0.075, 0.0375, 0.01875])]
    for make, expected in cases:
        opt = torch.optim.SGD([{"params": [torch.nn.Parameter(torch.ones(1))],
                                "initial_lr": 1.0}], lr=0.3)
        sched = make(opt)
        lrs = [opt.param_groups[0]["lr"]]
        for _ in range(4):
            opt.step()
            sched.step()
            lrs.append(round(sched.get_last_lr()[0], 10))
        assert lrs == expected, type(sched).__name__


def test_a_custom_scheduler_on_the_old_base_class_runs():
    """Older programs subclass ``_LRScheduler`` and read ``base_lrs``/``last_epoch``."""
    class Halving(torch.optim.lr_scheduler._LRScheduler):
        def get_lr(self):
            return [base / 2 ** self.last_epoch for base in self.base_lrs]

    opt = torch.optim.SGD(_two_params(), lr=0.8)
    sched = Halving(opt)
    for _ in range(3):
        opt.step()
        sched.step()
    assert sched.get_last_lr() == [0.1] and isinstance(sched, torch.optim.lr_scheduler.LRScheduler)
