"""Rich display in a notebook: every display method returns SVG/HTML that parses.

IPython calls ``_repr_svg_``/``_repr_html_`` on a cell's value; these tests call them the
same way and parse what comes back (``xml.etree`` for SVG, ``html.parser`` with a tag stack
for HTML) on graphs with loops and conds, then read the parsed text and sizes.
"""
from __future__ import annotations

import copy
import pickle
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from common.display import COLLAPSE_AT, COLUMN_PX, collapse, static_graph
from common.notebook import Sections
from comparisons.bench.suite import Results, Row
from comparisons.graphdiff import diff

SVG = "{http://www.w3.org/2000/svg}"
VOID = {"br", "hr", "img", "input", "meta", "link", "wbr"}


def parse_svg(text: str) -> ET.Element:
    """The SVG element, parsed; its width fits a notebook column."""
    root = ET.fromstring(text)
    assert root.tag == SVG + "svg"
    width = float(root.get("width").removesuffix("px"))
    assert 0 < width <= COLUMN_PX and float(root.get("height").removesuffix("px")) > 0
    return root


def svg_text(root: ET.Element) -> str:
    return "\n".join("".join(t.itertext()) for t in root.iter(SVG + "text"))


class Tags(HTMLParser):
    """Parses HTML, asserting that every element is closed in order; keeps tags and text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack, self.tags, self.texts = [], [], []
        self.feed(text)
        self.close()
        assert self.stack == [], f"unclosed: {self.stack}"

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.texts.append(data)


@pytest.fixture(scope="module")
def loop_and_cond():
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.float32, (), name="n")
        first, second = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2.0, b + 1.0),
                                      [tf.constant(0.0), n])
        y = tf.cond(n > 0, lambda: first * 2.0, lambda: second - 1.0)
        grad, = tf.gradients(y, [n])
    return g, n, y, grad


def test_a_graph_with_a_loop_and_a_cond_shows_its_regions(loop_and_cond):
    g = loop_and_cond[0]
    text = svg_text(parse_svg(g._repr_svg_()))
    assert "while: body" in text and "while: cond" in text       # the frames' titles
    assert "cond: branches[0] (pred False)" in text and "cond: branches[1] (pred True)" in text
    assert "StatelessWhile" in text and "Placeholder" in text


def test_a_loop_body_displays_as_a_graph_of_its_own(loop_and_cond):
    loop = next(op for op in loop_and_cond[0].get_operations() if op.type.endswith("While"))
    body = loop.attrs["body"].graph
    text = svg_text(parse_svg(body._repr_svg_()))
    assert {op.name for op in body.get_operations()} <= set(text.split())


def test_a_large_graph_is_folded_by_name_scope_with_a_count():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (2,), name="x")
        outs = []
        for k in range(8):
            with tf.name_scope(f"layer{k}"):
                h = x
                for _ in range(10):
                    h = tf.tanh(h * 1.5)
                outs.append(h)
        tf.add_n(outs, name="total")
    assert len(static_graph(g)) > COLLAPSE_AT
    text = svg_text(parse_svg(g._repr_svg_()))
    assert "layer3/\n(30 ops)" in text and "total" in text and "242 nodes, folded by name scope" in text
    assert len(collapse(static_graph(g))) == 8 + 2     # the scopes, x and total


def test_the_eager_tape_draws_itself_with_its_leaves_named():
    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0], requires_grad=True)
    y = (x + w) * (w + 1)
    text = svg_text(parse_svg(torch.graph_of(y, names={"w": w, "x": x})._repr_svg_()))
    assert text.split("\n").count("AddBackward0") == 2 and "MulBackward0" in text
    assert "w\nfloat32[1]" in text


def test_explain_is_the_same_text_with_collapsible_sections(loop_and_cond):
    g, n, y, grad = loop_and_cond
    with tf.Session(graph=g) as sess:
        shown = sess.explain([y, grad], {n: 3.0})
    plain = str(shown)
    assert type(plain) is str and shown == plain and shown + "" == plain and hash(shown) == hash(plain)
    parts = dict(shown.parts)                     # the text is exactly the parts, in order
    assert plain == (f"{parts['pass report']}\n{parts['generated code']}\n"
                     f"{parts['loop and branch kernels']}")
    assert pickle.loads(pickle.dumps(shown)) == plain and copy.copy(shown).parts == shown.parts
    page = Tags(shown._repr_html_())
    assert page.tags.count("details") == 3 and page.tags.count("summary") == 3
    titles = ["pass report", "generated code", "loop and branch kernels"]
    assert [t for t in page.texts if t in titles] == titles
    assert parts["generated code"] in page.texts                   # the code comes back unchanged once parsed


def test_sections_escape_what_they_show():
    page = Tags(Sections("x", [("a <b>", "if a < b: print('</pre>')")])._repr_html_())
    assert "a <b>" in page.texts and "if a < b: print('</pre>')" in page.texts


def test_the_diff_of_two_eager_passes_shows_both_graphs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    def branch(v):
        return v * 2 if v[0] > 0 else (v + 1) * 3
    d = diff(branch(x), branch(-x))
    page = Tags(d._repr_html_())
    assert page.tags.count("svg") == 2
    text = "\n".join(page.texts)
    assert "pass A" in text and "pass B" in text and "only in B (3 nodes)" in text


def _row(engine: str, kind: str, steady: float, **kw) -> Row:
    return Row(workload="counter_10", engine=engine, kind=kind, peer=False, min_s=steady,
               median_s=steady, runs=10, unit="iteration", units=10, **kw)


def test_bench_results_show_a_table_and_the_amortization_plot():
    rows = Results([_row("numpy", "numpy", 1e-6),
                    _row("dyngraph", "eager", 1e-4),
                    _row("staticgraph", "static", 2e-5, build_s=1e-2, first_s=1e-3)])
    page = Tags(rows._repr_html_())
    assert page.tags.count("table") == 1 and page.tags.count("svg") == 1
    assert page.tags.count("tr") == 2                 # header and one workload
    assert "counter_10" in page.texts and "static pays off after" in "".join(page.texts)
    assert rows == list(rows) and isinstance(rows, list)
