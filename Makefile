# Bilingual, executable LLM glossary.  `make help` lists the targets.
#
# Everything runs inside .venv, created and filled from pyproject.toml on first use;
# the stamp file means later runs only reinstall when pyproject.toml changes.

PYTHON     ?= python3
VENV       := .venv
BIN        := $(VENV)/bin
INSTALLED  := $(VENV)/.installed
LANGUAGES  := en zh_TW
BUILDDIR   := _build

# Warnings are errors (-W), every one of them is reported (--keep-going), and every
# cross-reference must resolve (-n).  FRESH=1 ignores the saved environment (CI sets it):
# an incremental build can hide a term that no longer exists.
SPHINXOPTS ?= -W --keep-going -n -q
ifdef FRESH
SPHINXOPTS += -E
endif
SPHINXBUILD = $(BIN)/sphinx-build -c . $(SPHINXOPTS)

.DEFAULT_GOAL := help
.PHONY: help install html doctest pytest test clean gettext intl-update intl-stats expected-terms dist

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_%-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[docs,test]'
	touch $@

install: $(INSTALLED) ## Create .venv and install llmcalc with the docs and test extras

html: $(addprefix html-,$(LANGUAGES)) ## Build English and zh_TW HTML into _build/html/<lang>/
	cp docs/_root/index.html $(BUILDDIR)/html/index.html

html-%: $(INSTALLED) ## Build one language, e.g. make html-zh_TW
	$(SPHINXBUILD) -b html -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/html/$*

doctest: $(addprefix doctest-,$(LANGUAGES)) ## Run the pages' examples in both languages
	$(BIN)/python tools/doctest_summary.py $(addprefix $(BUILDDIR)/doctest/,$(LANGUAGES))

doctest-%: $(INSTALLED)
	$(SPHINXBUILD) -b doctest -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/doctest/$*

gettext: $(INSTALLED) ## Extract the English messages into _build/gettext/*.pot
	$(SPHINXBUILD) -b gettext -d $(BUILDDIR)/doctrees/gettext docs $(BUILDDIR)/gettext

intl-update: gettext ## Merge new English messages into locales/zh_TW/LC_MESSAGES/*.po and rewrap every catalog
	$(BIN)/python tools/intl_update.py $(BUILDDIR)/gettext locales/zh_TW/LC_MESSAGES

expected-terms: html-en ## Rewrite tests/data/expected_terms.tsv from the built English pages (after adding a term)
	$(BIN)/python tools/termlists.py $(BUILDDIR)/html/en tests/data/expected_terms.tsv

intl-stats: $(INSTALLED) ## Translated / fuzzy / untranslated messages per zh_TW catalog
	$(BIN)/python tools/intl_stats.py locales/zh_TW/LC_MESSAGES

pytest: $(INSTALLED) ## Unit tests, llmcalc doctests and checks of the built site
	$(BIN)/python -m pytest

test: html doctest dist pytest ## Everything: both builds, both languages' doctests, the offline bundles, pytest

dist: html ## Offline bundles per language: dist/llm-glossary-<lang>-html.zip and .epub, checked
	$(BIN)/python tools/make_dist.py --languages $(LANGUAGES) --html-dir $(BUILDDIR)/html \
		--build-dir $(BUILDDIR) --dist dist --sphinx-options "$(SPHINXOPTS)"

clean: ## Remove build output (keeps .venv)
	rm -rf $(BUILDDIR) dist
