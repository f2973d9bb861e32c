"""The calculators' scripts and stylesheet, added only to the pages that have a widget.

Exists because most pages have no calculator: ``modelcounts.js`` (the formulas both kinds of
widget call), ``calculators.js`` (the three small calculators), ``modelconfig.js``,
``plannerrank.js``, ``plannershare.js``, ``plannerchart.js``, ``plannercost.js``, ``planneroffload.js`` and
``planner.js`` (the planner) and ``calculators.css`` are loaded where a widget is, and nowhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .directives import calculator, runs_javascript

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx


def add_script(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    if not runs_javascript(app) or doctree is None:
        return
    kinds = {node["kind"] for node in doctree.findall(calculator)}
    if kinds:
        # The memory formulas both kinds of widget call; deferred scripts run in document order.
        app.add_js_file("modelcounts.js", defer="defer")
    if kinds - {"planner"}:
        app.add_js_file("calculators.js", defer="defer")
    if "planner" in kinds:
        # The config reader before the planner that uses it; the share link and the chart register themselves
        # (window.LLMPlannerExtensions) before the planner makes them.
        app.add_js_file("modelconfig.js", defer="defer")
        app.add_js_file("plannerrank.js", defer="defer")  # before plannershare.js, which restores its fields
        app.add_js_file("plannershare.js", defer="defer")
        app.add_js_file("plannerchart.js", defer="defer")
        app.add_js_file("plannercost.js", defer="defer")
        app.add_js_file("planneroffload.js", defer="defer")
        app.add_js_file("planner.js", defer="defer")
    if kinds:
        app.add_css_file("calculators.css")
