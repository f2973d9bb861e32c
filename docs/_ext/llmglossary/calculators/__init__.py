"""Interactive calculators that run in the reader's browser, offline, in both languages.

Exists so that a reader can try the glossary's formulas on their own numbers: the LoRA,
model-memory and KV-cache calculators and the "Will it fit?" planner, each checked
against ``llmcalc`` (the browser tests run hundreds of vectors computed by ``llmcalc``
through the JavaScript and compare exactly).  One module per concern:

* :mod:`.labels`: the keyed-label protocol (which labels each widget needs, and checks);
* :mod:`.directives`: the directives, and what each builder gets of them;
* :mod:`.browserdata`: the presets and tables the JavaScript reads, from ``llmcalc``;
* :mod:`.html`: the widgets' markup, from Jinja templates;
* :mod:`.scripts`: the scripts and stylesheet, on the pages that have a widget.

Settings (``conf.py``): ``calculator_templates`` (the folder of ``widget.html`` and
``planner.html``), ``calculator_kv_presets`` (the KV-cache widget's models, full-attention
``llmcalc`` presets including ``reference``), ``calculator_memory_dtypes`` and
``calculator_kv_dtypes`` (the number formats each widget offers, names from
``llmcalc.DTYPE_BITS``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .browserdata import DEFAULT_KV_DTYPES, DEFAULT_KV_PRESETS, DEFAULT_MEMORY_DTYPES
from .directives import DIRECTIVES, calculator, resolve_calculators
from .html import DEFAULT_TEMPLATES, depart_calculator, visit_calculator
from .scripts import add_script

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata


def resolve_templates(app: Sphinx, config: Config) -> None:
    """Make a relative ``calculator_templates`` absolute, from the folder of ``conf.py`` (not the working folder)."""
    config.calculator_templates = str(Path(app.confdir, config.calculator_templates))


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.assets")  # its scripts, stylesheets and templates
    app.connect("config-inited", resolve_templates)
    app.add_config_value("calculator_templates", str(DEFAULT_TEMPLATES), "html", types=(str,))
    app.add_config_value("calculator_kv_presets", DEFAULT_KV_PRESETS, "html", types=(tuple, list))
    app.add_config_value("calculator_memory_dtypes", DEFAULT_MEMORY_DTYPES, "html", types=(tuple, list))
    app.add_config_value("calculator_kv_dtypes", DEFAULT_KV_DTYPES, "html", types=(tuple, list))
    # Only HTML writers ever meet the node: resolve_calculators replaces it for the rest.
    app.add_node(calculator, html=(visit_calculator, depart_calculator))
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.connect("doctree-resolved", resolve_calculators)
    app.connect("html-page-context", add_script)
    # env_version: doctrees pickled by an older version have positional labels or no links, or
    # the node in the old flat module (5 -> 6: the package).
    return {"version": "3.0", "env_version": 6, "parallel_read_safe": True, "parallel_write_safe": True}
