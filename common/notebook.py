"""HTML pieces for notebook display: collapsible sections, escaped code, tables.

IPython's rich display protocol is only method names (``_repr_html_``...), so nothing here
imports IPython, networkx or matplotlib: ``sess.explain(...)`` returns a :class:`Sections`
text on the hot import path of the compiler.  Every piece of text is escaped here, once.
"""
from __future__ import annotations

import html

__all__ = ["Sections", "details", "pre", "html_table"]


def details(summary: str, body_html: str, open_: bool = False) -> str:
    """A collapsible HTML section (``<details>``; ``summary`` is escaped, ``body_html`` not)."""
    return (f"<details{' open' if open_ else ''}><summary>{html.escape(summary)}</summary>"
            f"{body_html}</details>")


def pre(text: str) -> str:
    """``text`` as an escaped, scrollable ``<pre>`` block (long generated lines scroll)."""
    return (f'<pre style="max-width:100%;overflow-x:auto;font-size:12px">'
            f"{html.escape(text)}</pre>")


def html_table(header: list[str], rows: list[list[str]]) -> str:
    """An HTML table, every cell escaped; a header may break after a ``/`` (``dyngraph/torch``)
    so a wide table still fits a notebook column."""
    head = "".join(f"<th>{html.escape(str(h)).replace('/', '/<wbr>')}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return (f'<div style="max-width:100%;overflow-x:auto"><table style="font-size:12px"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


class Sections(str):
    """A text (exactly the ``str`` it always was: prints, compares, slices the same) that a
    notebook shows as collapsible sections: ``parts`` are ``(title, text)`` pairs, the first
    one open."""

    parts: tuple = ()

    def __new__(cls, text: str, parts=()) -> "Sections":
        self = super().__new__(cls, text)
        self.parts = tuple(parts)
        return self

    def __reduce__(self):            # pickles (and copies) as the text plus its parts
        return (Sections, (str(self), self.parts))

    def _repr_html_(self) -> str:
        parts = [(t, s) for t, s in self.parts if s.strip()] or [("text", str(self))]
        return "".join(details(t, pre(s), open_=k == 0) for k, (t, s) in enumerate(parts))
