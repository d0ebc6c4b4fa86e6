"""Random stateful programs, a sequential reference interpreter, and a graph builder for them.

A program is a list of statements over a few float64 variables::

    s0 = v1.assign_add(v0 * 0.5)                  # an assignment (its value re-reads v1)
    s1 = tf.identity(v1)                          # a read, in one of five spellings
    s2 = while i < 3 [and v2 < 4]: v0.assign_sub(...); acc += ...   # every iteration
    s3 = cond(s1 > 0.2, then: ..., else: ...)     # effects in the branch that runs
    s4 = tf.group(s0, s2)

Every statement is built under ``control_dependencies`` on the one before it (inside loop
bodies and branches too), so a run has one correct answer -- the one the reference
interpreter gets by executing the statements one by one.  ``build`` uses only the TF 1.x
API, so the same program runs on staticgraph and, for the long campaign, on the real
TensorFlow (``python -m tests.stateprog --count 5000 --tf``; needs tensorflow installed).

A run fetches each statement's value, and for a loop that is *one* of its two outputs, so
some work is needed by no fetch -- and TF never runs it (its lowered loop computes a loop
variable only where a fetch or the condition needs it; a cond result likewise)::

    s2 = while i < 3: ... -> i                  # the loop's value is its counter, and
                                                # with the counter not waiting for the
                                                # body (free_i), acc is needed by nothing:
                                                # neither the body nor acc's initial value
                                                # (a prelude block: s2.prelude) runs
    s3 = cond(...) -> main  [aside: ...]        # a second result with its own statements,
                                                # never fetched: they never run

The reference skips exactly that work.  Such a program's variables are written only in
an order its edges fix (a condition reads a variable only when nothing in the loop writes
one, or the counter waits for the body).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

N_VARS = 3
READS = ("identity", "plus_zero", "times", "convert", "read_value")


# --- the program -------------------------------------------------------------------------

@dataclass
class Stmt:
    kind: str                    # assign | read | expr | group | while | cond
    var: int = 0
    how: str = ""                # assign: assign/assign_add/assign_sub; read: one of READS
    expr: Any = None             # a nested tuple (see _eval)
    c: float = 1.0
    body: list = field(default_factory=list)
    other: list = field(default_factory=list)
    result: Any = None
    result_else: Any = None
    n: int = 0
    members: tuple = ()
    out: str = "acc"             # while: the statement's value, "acc" or "i" (its counter)
    free_i: bool = False         # while: the counter's next value does not wait for the body
    prelude: list = field(default_factory=list)   # while: statements computing acc's start
    init: Any = None             # while: acc's start (after the prelude), else 0.0
    aside: tuple = ()            # cond: (then block, else block, then result, else result) of
                                 # a second result that is never fetched


@dataclass
class Program:
    inits: list
    stmts: list
    fetch: list                  # indices of statements with tensor values


class _Gen:
    """Draws a program.  ``extra`` draws the loops' and conds' partial fetches (their own
    stream: with ``extra`` never choosing them, a seed's program is what it was before)."""

    def __init__(self, rng: np.random.Generator, extra: np.random.Generator | None = None):
        self.rng = rng
        self.extra = extra

    def const(self) -> float:
        return float(self.rng.choice([-1.5, -1.0, -0.5, 0.25, 0.5, 1.0, 2.0]))

    def expr(self, tensors: list[int], locals_: list[str], depth: int = 0):
        r = self.rng.random()
        if depth < 2 and r < 0.35:
            op = self.rng.choice(["add", "mul", "sub"])
            return (op, self.expr(tensors, locals_, depth + 1), self.expr(tensors, locals_, depth + 1))
        choices = [("var", int(self.rng.integers(N_VARS)))] * 3 + [("const", self.const())]
        choices += [("val", k) for k in tensors[-4:]] + [("local", n) for n in locals_]
        return choices[int(self.rng.integers(len(choices)))]

    def block(self, size: int, tensors: list[int], locals_: list[str], depth: int, base: int):
        """``size`` statements; ``tensors`` are usable statement values (global numbering)."""
        out: list[Stmt] = []
        for j in range(size):
            k = base + j
            r = self.rng.random()
            if r < 0.35:
                s = Stmt("assign", int(self.rng.integers(N_VARS)),
                         str(self.rng.choice(["assign", "assign_add", "assign_sub"])),
                         self.expr(tensors, locals_))
            elif r < 0.6:
                s = Stmt("read", int(self.rng.integers(N_VARS)), str(self.rng.choice(READS)),
                         c=self.const())
            elif r < 0.7:
                s = Stmt("expr", expr=self.expr(tensors, locals_))
            elif r < 0.77 and out:
                s = Stmt("group", members=tuple(sorted({base + int(self.rng.integers(len(out)))
                                                         for _ in range(2)})))
            elif r < 0.9 and depth < 2:
                n_body = int(self.rng.integers(1, 4))
                s = Stmt("while", n=int(self.rng.integers(0, 4)), var=int(self.rng.integers(-1, N_VARS)),
                         c=float(self.rng.choice([0.0, 1.0, 4.0])),
                         body=self.block(n_body, tensors, locals_ + ["i", "acc"], depth + 1, k * 100 + 1000))
                s.result = self.expr(tensors, locals_ + ["i", "acc"])
                self.partial_loop(s, tensors, locals_, depth, k)
            elif depth < 2:
                s = Stmt("cond", expr=self.expr(tensors, locals_), c=self.const(),
                         body=self.block(int(self.rng.integers(0, 3)), tensors, locals_, depth + 1,
                                         k * 100 + 2000),
                         other=self.block(int(self.rng.integers(0, 3)), tensors, locals_, depth + 1,
                                          k * 100 + 3000))
                s.result, s.result_else = self.expr(tensors, locals_), self.expr(tensors, locals_)
                self.partial_cond(s, tensors, locals_, depth, k)
            else:
                s = Stmt("read", int(self.rng.integers(N_VARS)), "identity")
            out.append(s)
            if s.kind in ("read", "expr", "while", "cond") and depth == 0:
                tensors = tensors + [k]
        return out

    def partial_loop(self, s: Stmt, tensors: list[int], locals_: list[str], depth: int, k: int):
        """Maybe make the loop's value its counter, free the counter from the body, and
        compute acc's start with a prelude block -- only where its writes are ordered: a
        counter waiting for the body does not wait for acc's start when the body never
        runs (TF then runs the prelude, but unordered with what follows the loop).  The
        condition reads a variable only if no write in the loop can race with it."""
        if self.extra is None:
            return
        x = _Gen(self.extra, self.extra)
        s.out = "i" if x.rng.random() < 0.4 else "acc"
        s.free_i = bool(x.rng.random() < 0.5)
        if (s.out == "acc" or s.free_i) and x.rng.random() < 0.4:
            s.prelude = x.block(int(x.rng.integers(0, 3)), tensors, locals_, depth + 1, k * 100 + 4000)
            s.init = x.expr(tensors, locals_)
        acc_runs = s.out == "acc" or not s.free_i
        if acc_runs and (s.free_i or s.init is not None):
            s.var = -1

    def partial_cond(self, s: Stmt, tensors: list[int], locals_: list[str], depth: int, k: int):
        """Maybe give the cond a second result, never fetched, with statements of its own."""
        if self.extra is None or self.extra.random() >= 0.3:
            return
        x = _Gen(self.extra, self.extra)
        s.aside = (x.block(int(x.rng.integers(0, 3)), tensors, locals_, depth + 1, k * 100 + 5000),
                   x.block(int(x.rng.integers(0, 3)), tensors, locals_, depth + 1, k * 100 + 6000),
                   x.expr(tensors, locals_), x.expr(tensors, locals_))


def generate(seed: int, size: int = 8, partial: bool = True) -> Program:
    """Program ``seed``; ``partial=False``: no partial fetches (the generator's first form)."""
    rng = np.random.default_rng(seed)
    g = _Gen(rng, np.random.default_rng([seed, 1]) if partial else None)
    stmts = g.block(size, [], [], 0, 0)
    tensors = [k for k, s in enumerate(stmts) if s.kind in ("read", "expr", "while", "cond")]
    return Program([g.const() for _ in range(N_VARS)], stmts, tensors)


# --- the reference: statements one by one ---------------------------------------------------

class _Env:
    def __init__(self, variables: list[float]):
        self.vars = list(variables)
        self.values: dict[int, Any] = {}      # statement -> float, or ("unread", var)
        self.locals: dict[str, float] = {}


def _eval(e, env: _Env) -> float:
    tag = e[0]
    if tag == "const":
        return e[1]
    if tag == "var":
        return env.vars[e[1]]
    if tag == "local":
        return env.locals[e[1]]
    if tag == "val":
        v = env.values[e[1]]
        return env.vars[v[1]] if isinstance(v, tuple) else v     # an assignment reads again
    a, b = _eval(e[1], env), _eval(e[2], env)
    return {"add": a + b, "mul": a * b, "sub": a - b}[tag]


def _run_block(stmts: list[Stmt], env: _Env, base: int) -> None:
    for j, s in enumerate(stmts):
        k = base + j
        if s.kind == "assign":
            x = _eval(s.expr, env)
            old = env.vars[s.var]
            env.vars[s.var] = {"assign": x, "assign_add": old + x, "assign_sub": old - x}[s.how]
            env.values[k] = ("unread", s.var)
        elif s.kind == "read":
            v = env.vars[s.var]
            env.values[k] = v * s.c if s.how == "times" else v
        elif s.kind == "expr":
            env.values[k] = _eval(s.expr, env)
        elif s.kind == "while":
            acc_runs = s.out == "acc" or not s.free_i     # else nothing needs acc: TF skips it
            acc = 0.0
            if acc_runs and s.init is not None:
                _run_block(s.prelude, env, k * 100 + 4000)
                acc = _eval(s.init, env)
            saved = dict(env.locals)
            env.locals.update(i=0.0, acc=acc)
            count = 0
            for i in range(s.n):
                if s.var >= 0 and not env.vars[s.var] < s.c:    # the condition reads a variable
                    break
                env.locals["i"] = float(i)
                if acc_runs:
                    _run_block(s.body, env, k * 100 + 1000)
                    env.locals["acc"] = _eval(s.result, env)
                count += 1
            env.values[k] = env.locals["acc"] if s.out == "acc" else float(count)
            env.locals = saved
        elif s.kind == "cond":
            if _eval(s.expr, env) > s.c:
                _run_block(s.body, env, k * 100 + 2000)
                env.values[k] = _eval(s.result, env)
            else:
                _run_block(s.other, env, k * 100 + 3000)
                env.values[k] = _eval(s.result_else, env)


def reference(prog: Program) -> tuple[list[float], list[float]]:
    """Fetched statement values, then the variables' final values."""
    env = _Env(prog.inits)
    _run_block(prog.stmts, env, 0)
    return [env.values[k] for k in prog.fetch], env.vars


# --- the same program as a TF 1.x graph ---------------------------------------------------

class _Builder:
    def __init__(self, tf):
        self.tf = tf
        self.values: dict[int, Any] = {}

    def chained(self, last):
        return self.tf.control_dependencies([] if last is None else [last])

    def expr(self, e, variables, locals_: dict):
        tf, tag = self.tf, e[0]
        if tag == "const":
            return tf.constant(e[1], tf.float64)
        if tag == "var":
            return tf.identity(variables[e[1]])
        if tag == "local":
            return locals_[e[1]]
        if tag == "val":
            v = self.values[e[1]]
            inner = tf.get_default_graph() is not self.graph
            if isinstance(v, tuple):        # an assignment's value: read again, here
                return tf.identity(variables[v[1]] if inner else v[0])
            return v
        a, b = self.expr(e[1], variables, locals_), self.expr(e[2], variables, locals_)
        return {"add": tf.add, "mul": tf.multiply, "sub": tf.subtract}[tag](a, b)

    def read(self, s: Stmt, var):
        tf = self.tf
        if s.how == "identity":
            return tf.identity(var)
        if s.how == "plus_zero":
            return var + 0.0
        if s.how == "times":
            return var * s.c
        if s.how == "convert":
            return tf.convert_to_tensor(var)
        return var.read_value()

    def block(self, stmts: list[Stmt], variables, locals_: dict, base: int, last):
        tf = self.tf
        for j, s in enumerate(stmts):
            k = base + j
            with self.chained(last):
                if s.kind == "assign":
                    x = self.expr(s.expr, variables, locals_)
                    unread = getattr(variables[s.var], s.how)(x)
                    self.values[k] = (unread, s.var)
                    last = unread
                    continue
                if s.kind == "read":
                    out = self.read(s, variables[s.var])
                elif s.kind == "expr":
                    out = tf.identity(self.expr(s.expr, variables, locals_))
                elif s.kind == "group":
                    members = [self.values[m][0].op if isinstance(self.values[m], tuple)
                               else self.values[m] for m in s.members if m in self.values]
                    last = tf.group(*members) if members else last
                    continue
                elif s.kind == "while":
                    out = self.loop(s, k, variables, locals_)
                else:
                    out = self.branch(s, k, variables, locals_)
            self.values[k] = out
            last = out
        return last

    def loop(self, s: Stmt, k: int, variables, locals_):
        tf = self.tf
        start = tf.constant(0.0, tf.float64)
        if s.init is not None:
            end = self.block(s.prelude, variables, locals_, k * 100 + 4000, None)
            with self.chained(end):
                start = tf.identity(self.expr(s.init, variables, locals_))

        def body(i, acc):
            inner = dict(locals_, i=tf.cast(i, tf.float64), acc=acc)
            with tf.control_dependencies([i]):
                first = tf.identity(acc)
            free = i + 1 if s.free_i else None        # built outside the wait on the body
            end = self.block(s.body, variables, inner, k * 100 + 1000, first)
            with tf.control_dependencies([end]):
                return free if s.free_i else i + 1, tf.identity(self.expr(s.result, variables, inner))
        def cond(i, acc):
            if s.var < 0:
                return i < s.n
            return tf.logical_and(i < s.n, variables[s.var] < s.c)
        i, acc = tf.while_loop(cond, body, [tf.constant(0), start], parallel_iterations=1)
        return acc if s.out == "acc" else tf.cast(i, tf.float64)

    def branch(self, s: Stmt, k: int, variables, locals_):
        tf = self.tf
        pred = self.expr(s.expr, variables, locals_) > s.c

        def result(stmts, base, expr):
            end = self.block(stmts, variables, locals_, base, None)
            with self.chained(end):
                return tf.identity(self.expr(expr, variables, locals_))

        def arm(stmts, base, expr, which):
            def fn():
                main = result(stmts, base, expr)
                if not s.aside:
                    return main
                return main, result(s.aside[which], k * 100 + 5000 + 1000 * which, s.aside[2 + which])
            return fn
        out = tf.cond(pred, arm(s.body, k * 100 + 2000, s.result, 0),
                      arm(s.other, k * 100 + 3000, s.result_else, 1))
        return out[0] if s.aside else out


def run_graph(prog: Program, tf, config=None) -> tuple[list[float], list[float]]:
    """Build ``prog`` with the module ``tf`` (staticgraph, or tf.compat.v1), run it once."""
    graph = tf.Graph()
    with graph.as_default():
        b = _Builder(tf)
        b.graph = graph
        variables = [tf.Variable(np.float64(x), name=f"v{i}") for i, x in enumerate(prog.inits)]
        last = b.block(prog.stmts, variables, {}, 0, None)
        with b.chained(last):
            finals = [tf.identity(v) for v in variables]
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([b.values[k] for k in prog.fetch] + finals)
    n = len(prog.fetch)
    return [float(x) for x in got[:n]], [float(x) for x in got[n:]]


def agree(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(np.isclose(x, y, rtol=1e-12, atol=1e-12) or
                                    (np.isnan(x) and np.isnan(y)) for x, y in zip(a, b))


def check(seed: int, tf, config=None) -> str | None:
    """None when the graph run agrees with the reference; else a description."""
    prog = generate(seed)
    want = reference(prog)
    if any(abs(x) > 1e12 for x in want[0] + want[1]):
        return None                       # values too large for a meaningful comparison
    got = run_graph(prog, tf, config)
    if agree(got[0], want[0]) and agree(got[1], want[1]):
        return None
    return f"seed {seed}: graph {got} vs reference {want}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Random stateful programs: graph vs reference.")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--tf", action="store_true", help="also run each program on real TensorFlow")
    args = p.parse_args(argv)
    import staticgraph
    engines = [("staticgraph", staticgraph, None)]
    if args.tf:
        import tensorflow
        from tensorflow.core.protobuf import rewriter_config_pb2
        v1 = tensorflow.compat.v1
        v1.disable_eager_execution()
        off = v1.ConfigProto(graph_options=v1.GraphOptions(rewrite_options=rewriter_config_pb2.RewriterConfig(
            disable_meta_optimizer=True)))
        engines.append(("tensorflow", v1, off))
    bad = 0
    for seed in range(args.start, args.start + args.count):
        for name, module, config in engines:
            problem = check(seed, module, config)
            if problem:
                bad += 1
                print(f"{name}: {problem}", flush=True)
    print(f"{args.count} programs, {len(engines)} engine(s), {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
