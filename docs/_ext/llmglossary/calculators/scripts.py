"""The calculators' scripts and stylesheet, added only to the pages that have a widget.

Exists because most pages have no calculator: ``modelcounts.js`` (the formulas both kinds of
widget call), ``calculators.js`` (the three small calculators), ``modelconfig.js``,
``plannerrank.js``, ``plannershare.js``, ``plannerchart.js``, ``plannercost.js``, ``planneroffload.js``,
the planner's arithmetic (``PLANNER_ARITHMETIC``, a script per llmcalc module), ``plannerwidget.js`` and
``calculators.css`` are loaded where a widget is, and nowhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .directives import calculator, runs_javascript

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

SHARED_SCRIPT = "modelcounts.js"
"""The memory formulas every kind of widget calls, loaded first wherever a widget is."""
CALCULATORS_SCRIPT = "calculators.js"
"""The three small calculators (LoRA, memory, KV cache), loaded where one of them is."""
# The planner's scripts after SHARED_SCRIPT, in the order the page runs them (deferred scripts run in document
# order): the config reader before the planner that uses it; the vLLM speed estimate (vllmspeed.js, with
# plannerspeed.js's number formatting) before the ranking that estimates each row with it; the ranking before
# plannershare.js, which restores its fields; the share link, the chart, the cost and the offload register
# themselves (window.LLMPlannerExtensions) before the widget makes them; the widget after planner.js, whose
# formulas (window.LLMPlanner) it calls.
# tests/jsnode.py loads the same list.
PLANNER_ARITHMETIC = ("plannermemory.js", "planneractivations.js", "plannerweights.js", "plannercore.js",
                      "plannerengines.js", "planner.js")
"""The planner's copy of llmcalc, a script per module (memory and _validate, activations, weightformats and
checkpoints, planner, engines) sharing window.LLMPlannerParts; planner.js, last, exports window.LLMPlanner."""
PLANNER_SCRIPTS = ("modelconfig.js", "plannerspeed.js", "vllmspeed.js", "plannerrank.js", "plannershare.js",
                   "plannerchart.js", "plannercost.js", "planneroffload.js", *PLANNER_ARITHMETIC, "plannerwidget.js")


def add_script(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    if not runs_javascript(app) or doctree is None:
        return
    kinds = {node["kind"] for node in doctree.findall(calculator)}
    if kinds:
        # The memory formulas both kinds of widget call; deferred scripts run in document order.
        app.add_js_file(SHARED_SCRIPT, defer="defer")
    if kinds - {"planner"}:
        app.add_js_file(CALCULATORS_SCRIPT, defer="defer")
    if "planner" in kinds:
        for script in PLANNER_SCRIPTS:
            app.add_js_file(script, defer="defer")
    if kinds:
        app.add_css_file("calculators.css")
