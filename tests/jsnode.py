"""The planner's scripts under Node.js: the browser's copy of llmcalc checked in the fast tier, without a browser.

The arithmetic of the widgets (``modelconfig.js``, ``modelcounts.js``, ``planner.js`` and the scripts the planner
page loads with them) needs nothing of a browser but a global ``window`` and the data the page carries, so
``tests/js/vmhost.cjs`` runs the very scripts the page loads, in the order the extension registers them
(``llmglossary.calculators.scripts``), in a ``vm`` context fed the spec ``llmcalc.browser`` writes into the page.
:class:`NodePage` answers ``evaluate(source, arg)`` as Playwright's ``page.evaluate`` does, so a comparison script
written for Chromium runs here unchanged, in one Node process per page.  Chromium stays the judge of what a reader
sees (tests/browser.py); this is the judge of the numbers.

Without Node a contributor's run skips these tests with that reason; in CI (``CI`` set) they fail instead, as the
browser tests do (``conftest.py`` decides before a test's fixtures are built).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from browser import require_program

HOST = Path(__file__).resolve().parent / "js" / "vmhost.cjs"
MISSING = "Node.js is not installed (.ci/run installs it: apt-get install nodejs)"
PLANNER_ROOT = '.calculator[data-calculator="planner"]'
# The planner page's init (plannerwidget.js) gives planner.js its tables (useTables); with no widget to set up, the
# prelude does the same from the same data-tables.
USE_PAGE_TABLES = f"window.LLMPlanner.useTables(JSON.parse(document.querySelector({PLANNER_ROOT!r}).dataset.tables));"


def require_node() -> None:
    """Skip the calling test without Node; fail it instead when running in CI."""
    require_program("node", MISSING, "Node")


class NodeError(Exception):
    """A script threw, in the page or in an evaluated source: Node's stack as the message."""


class NodePage:
    """Scripts loaded into one Node ``vm`` context; ``evaluate`` as Playwright's ``page.evaluate``."""

    def __init__(self, scripts: list[tuple[str, str]], elements: Mapping[str, str] | None = None,
                 roots: Mapping[str, Mapping[str, str]] | None = None,
                 lists: Mapping[str, list[Mapping[str, str]]] | None = None, prelude: str = "") -> None:
        node = shutil.which("node")
        if node is None:
            raise NodeError(MISSING)
        self.process = subprocess.Popen([node, str(HOST)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, encoding="utf-8")
        self._ask({"scripts": scripts, "elements": dict(elements or {}),
                   "roots": {key: dict(value) for key, value in (roots or {}).items()},
                   "lists": {key: [dict(item) for item in value] for key, value in (lists or {}).items()},
                   "prelude": prelude})

    def _ask(self, request: object) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise NodeError(f"node ended (exit status {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise NodeError(answer["error"])
        return json.loads(answer["result"])

    def evaluate(self, source: str, arg: object = None) -> Any:
        """What ``source`` gives (called with ``arg`` when it is a function), as JSON gives it back."""
        return self._ask({"source": source, "arg": arg})

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def script_texts(names: tuple[str, ...], sources: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """Each script's text from llmglossary's static folder, or from ``sources`` where it names the script."""
    from llmglossary.assets import STATIC  # imported by the tests that run, not by conftest.py

    sources = sources or {}
    return [(name, sources.get(name) or (STATIC / name).read_text(encoding="utf-8")) for name in names]


def modelconfig_tables() -> str:
    """The text of the page's ``#modelconfig-tables``: ``browser_data()`` as ``inline_json`` writes it (keys sorted,
    ``</`` escaped), which is what the script reads."""
    from llmcalc.browser import browser_data
    from llmglossary.glossary_html import inline_json

    element = inline_json("modelconfig-tables", browser_data())
    return element[element.index(">") + 1:element.rindex("</script>")]


def planner_page_scripts() -> tuple[str, ...]:
    """What a planner page loads, in its order: the script every widget shares, then the planner's."""
    from llmglossary.calculators.scripts import PLANNER_SCRIPTS, SHARED_SCRIPT

    return (SHARED_SCRIPT, *PLANNER_SCRIPTS)


def planner_page(sources: Mapping[str, str] | None = None, tables: Mapping[str, Any] | None = None,
                 prelude: str = "") -> NodePage:
    """A planner page's scripts on the spec llmcalc writes into it (``tables`` for another data-tables).

    The modelconfig tables are ``browser_data()`` (the page's ``#modelconfig-tables``), the widget's
    ``data-presets`` and ``data-tables`` are the extension's own (``planner_data()``).
    """
    from llmglossary.calculators.browserdata import planner_data

    page_data = planner_data()
    dataset = {"presets": page_data["data-presets"],
               "tables": page_data["data-tables"] if tables is None else json.dumps(tables)}
    return NodePage(script_texts(planner_page_scripts(), sources),
                    elements={"modelconfig-tables": modelconfig_tables()},
                    roots={PLANNER_ROOT: dataset}, prelude=USE_PAGE_TABLES + prelude)


def calculators_page() -> NodePage:
    """A glossary page's small calculators: their scripts, and each widget's ``data-dtype-bits`` (llmcalc's)."""
    from llmglossary.calculators.browserdata import compact_json, dtype_bits
    from llmglossary.calculators.scripts import CALCULATORS_SCRIPT, SHARED_SCRIPT

    return NodePage(script_texts((SHARED_SCRIPT, CALCULATORS_SCRIPT)),
                    lists={".calculator[data-dtype-bits]": [{"dtypeBits": compact_json(dtype_bits())}]})
