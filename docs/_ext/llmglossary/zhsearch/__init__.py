"""Chinese full-text search that finds the glossary's own words, works in a browser, and costs little.

Exists because Sphinx 9.0.4's stock Chinese search fails the glossary silently twice
(its jieba dictionary knows none of our terms, and its search page throws
``ReferenceError``), and because indexing Chinese was most of a zh_TW build's time.
One module per concern:

* :mod:`.userdictionary`: the glossary's zh_TW terms as jieba words;
* :mod:`.stemmer`: the English stemmer under the name the search page calls (version-gated);
* :mod:`.segmentations`: segmentations and stems remembered instead of redone;
* :mod:`.language`: the search language that puts them together (its ``split``
  override version-gated), registered for Chinese builds.

The terminology table is the setting ``glossary_terminology`` (:mod:`..terminology`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .language import configure_chinese_search, traditional_chinese_search
from .segmentations import RememberedStems, Segmentations
from .userdictionary import terminology_words, write_user_dictionary

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

__all__ = [
    "RememberedStems",
    "Segmentations",
    "configure_chinese_search",
    "terminology_words",
    "traditional_chinese_search",
    "write_user_dictionary",
]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.terminology")
    app.connect("config-inited", configure_chinese_search)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
