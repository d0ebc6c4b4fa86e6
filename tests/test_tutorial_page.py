"""``python -m comparisons --html DIR``: the tutorial as one page, checked in a real browser.

The page is rendered by headless Chromium when it is installed (skipped otherwise) at a
notebook-column width; a script run in the page reports every element that sticks out of
the page or spills out of its box, and every picture that did not load or has no size.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from comparisons import tutorial
from comparisons.cli import main

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))),
                None)

CHECK = """<script>
const width = document.documentElement.clientWidth, bad = [];
for (const e of document.querySelectorAll("body *")) {
  const r = e.getBoundingClientRect(), style = getComputedStyle(e);
  const name = e.tagName + (e.className && e.className.baseVal === undefined ? "." + e.className : "");
  if (r.right > width + 1 || r.left < -1) bad.push("outside the page: " + name);
  if (style.overflowX === "visible" && !(e instanceof SVGElement) && e.scrollWidth > e.clientWidth + 1
      && e.clientWidth > 0) bad.push("spills out: " + name);
}
const images = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);
const svgs = [...document.querySelectorAll("svg")].filter(s => !s.parentElement.closest("svg"));
const empty = svgs.filter(s => { const r = s.getBoundingClientRect(); return !(r.width > 0 && r.height > 0); });
document.getElementById("check").textContent = JSON.stringify(
  {bad: bad, images: images, svgs: svgs.length, empty_svgs: empty.length, width: width});
</script>"""


class _Text(HTMLParser):
    """The text of the element with ``id="check"``."""

    def __init__(self):
        super().__init__()
        self.inside, self.text = False, ""

    def handle_starttag(self, tag, attrs):
        self.inside = self.inside or ("id", "check") in attrs

    def handle_endtag(self, tag):
        if self.inside and tag == "pre":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data


def test_the_stored_notebook_is_the_tutorial_cells():
    """examples/static_vs_dynamic.ipynb is written from tutorial.CELLS (the page's source),
    without outputs (git stores the source; running it makes the outputs)."""
    assert json.loads(tutorial.NOTEBOOK.read_text()) == tutorial.notebook()


def test_markdown_is_escaped_before_its_marks_are_applied():
    assert tutorial.markdown("## a `<b>` **c** *d*\n\ntext & more") == \
        "<h2>a <code>&lt;b&gt;</code> <strong>c</strong> <em>d</em></h2>\n<p>text &amp; more</p>"


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_the_page_renders_in_chromium_without_overflow_and_with_every_picture(tmp_path, capsys):
    assert main(["--html", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "index.html")
    page = (tmp_path / "index.html").read_text()
    checked = tmp_path / "checked.html"
    checked.write_text(page.replace("</body>", f'<pre id="check"></pre>{CHECK}</body>'))
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          "--window-size=800,1000", "--dump-dom", checked.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    parser = _Text()
    parser.feed(dom)
    report = json.loads(parser.text)
    assert report["bad"] == [] and report["images"] == [], report
    assert report["svgs"] >= 8 and report["empty_svgs"] == 0
