"""The calculators' scripts and stylesheet, added only to the pages that have a widget.

Exists because most pages have no calculator: ``calculators.js`` (the three small
calculators), ``modelconfig.js`` and ``planner.js`` (the planner) and ``calculators.css``
are loaded where a widget is, and nowhere else.
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
    if kinds - {"planner"}:
        app.add_js_file("calculators.js", defer="defer")
    if "planner" in kinds:
        # Deferred scripts run in document order: the config reader before the planner that uses it.
        app.add_js_file("modelconfig.js", defer="defer")
        app.add_js_file("planner.js", defer="defer")
    if kinds:
        app.add_css_file("calculators.css")
