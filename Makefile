# Bilingual, executable LLM glossary.  `make help` lists the targets.
#
# Everything runs inside .venv, created and filled from pyproject.toml on first use, with
# every transitive dependency pinned by constraints.txt (`make constraints` refreshes it);
# the stamp file means later runs only reinstall when either file changes.

PYTHON      ?= python3
VENV        := .venv
BIN         := $(VENV)/bin
INSTALLED   := $(VENV)/.installed
CONSTRAINTS := constraints.txt
LANGUAGES   := en zh_TW
BUILDDIR    := _build

# Warnings are errors (-W), every one of them is reported (--keep-going), and every
# cross-reference must resolve (-n).  These are not options: no environment variable or
# command-line assignment can drop them (SPHINXOPTS only adds, e.g. SPHINXOPTS=-v).
# FRESH=1 makes the HTML build ignore the saved environment (CI sets it): an incremental
# build can hide a term that no longer exists.  The doctest run then reuses that fresh one.
override STRICT := -W --keep-going -n
SPHINXOPTS ?= -q
ifdef FRESH
override FRESH_OPTION := -E
endif
SPHINXBUILD = $(BIN)/sphinx-build -c . $(STRICT) $(SPHINXOPTS)

.DEFAULT_GOAL := help
.PHONY: help install html doctest print pytest site-check a11y-deps lint test clean gettext intl-update intl-stats expected-terms \
	dist livehtml constraints

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_%-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# PIP_CONSTRAINT (not -c) also reaches pip's isolated build environment, so the
# setuptools that builds the editable install is pinned too.
$(INSTALLED): pyproject.toml $(CONSTRAINTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	PIP_CONSTRAINT=$(CURDIR)/$(CONSTRAINTS) $(BIN)/python -m pip install --quiet pip
	PIP_CONSTRAINT=$(CURDIR)/$(CONSTRAINTS) $(BIN)/python -m pip install --quiet -e '.[docs,test,lint,dev]'
	touch $@

install: $(INSTALLED) ## Create .venv and install llmcalc with the docs, test, lint and dev extras

constraints: $(INSTALLED) ## Re-pin every dependency (direct and transitive) into constraints.txt
	$(BIN)/uv pip compile pyproject.toml build-requirements.in --all-extras --python-version 3.11 \
		--quiet --upgrade -o $(CONSTRAINTS)

html: $(addprefix html-,$(LANGUAGES)) ## Build English and zh_TW HTML into _build/html/<lang>/
	cp docs/_root/index.html $(BUILDDIR)/html/index.html

# Each language has its own doctree directory.  The other builders of a language reuse
# the environment its HTML build saved, so they run one after another, never side by
# side (make -j): html-<lang>, then doctest-, text-, latex-<lang>.
html-%: $(INSTALLED) ## Build one language, e.g. make html-zh_TW
	$(SPHINXBUILD) $(FRESH_OPTION) -b html -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/html/$*

doctest: $(addprefix doctest-,$(LANGUAGES)) ## Run the pages' examples in both languages
	$(BIN)/python tools/doctest_summary.py $(addprefix $(BUILDDIR)/doctest/,$(LANGUAGES))

doctest-%: html-%
	$(SPHINXBUILD) -b doctest -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/doctest/$*

# Print and plain-text output: every page must build without JavaScript (calculators,
# concept map and previews degrade to their explanation).  LaTeX sources only, no PDF.
print: $(foreach lang,$(LANGUAGES),text-$(lang) latex-$(lang)) ## Text and LaTeX builds of both languages

text-%: doctest-%
	$(SPHINXBUILD) -b text -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/text/$*

latex-%: text-%
	$(SPHINXBUILD) -b latex -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/latex/$*

livehtml: $(INSTALLED) ## Rebuild and reload the English site in a browser while editing
	$(BIN)/sphinx-autobuild -c . $(STRICT) $(SPHINXOPTS) -b html -d $(BUILDDIR)/doctrees/live \
		--watch docs/_ext --watch docs/_static --watch locales docs $(BUILDDIR)/live

gettext: $(INSTALLED) ## Extract the English messages into _build/gettext/*.pot
	$(SPHINXBUILD) $(FRESH_OPTION) -b gettext -d $(BUILDDIR)/doctrees/gettext docs $(BUILDDIR)/gettext

intl-update: gettext ## Merge new English messages into locales/zh_TW/LC_MESSAGES/*.po and rewrap every catalog
	$(BIN)/python tools/intl_update.py $(BUILDDIR)/gettext locales/zh_TW/LC_MESSAGES

expected-terms: html-en ## Rewrite tests/data/expected_terms.tsv from the built English pages (after adding a term)
	$(BIN)/python tools/termlists.py $(BUILDDIR)/html/en tests/data/expected_terms.tsv

intl-stats: $(INSTALLED) ## Translated / fuzzy / untranslated messages per zh_TW catalog
	$(BIN)/python tools/intl_stats.py locales/zh_TW/LC_MESSAGES

lint: $(INSTALLED) ## ruff over the repository, mypy --strict over llmcalc and docs/_ext
	$(BIN)/ruff check .
	$(BIN)/mypy

# The site checks read _build/html and _build/doctest: they depend on building them.
site-check: html doctest print

pytest: site-check a11y-deps $(INSTALLED) ## Unit tests, llmcalc doctests and checks of the freshly built site
	$(BIN)/python -m pytest

# axe-core for tests/test_accessibility.py, at the exact version and hash of its lock file
# (npm ci installs the lock file as it is, and fails if package.json disagrees with it).
A11Y := tests/a11y
$(A11Y)/node_modules/.installed: $(A11Y)/package.json $(A11Y)/package-lock.json
	npm ci --prefix $(A11Y) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

# Without npm a contributor's run skips the accessibility test (as without Chromium); in CI
# (.ci/run installs npm) the test fails instead.
a11y-deps: ## Install axe-core (npm ci in tests/a11y) for the accessibility test
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(A11Y)/node_modules/.installed; \
	else echo "npm not found: tests/test_accessibility.py will skip (apt-get install npm)"; fi

test: lint dist pytest ## Everything: lint, both builds, doctests, text and LaTeX, the offline bundles, pytest

dist: html ## Offline bundles per language: dist/llm-glossary-<lang>-html.zip and .epub, checked
	$(BIN)/python tools/make_dist.py --languages $(LANGUAGES) --html-dir $(BUILDDIR)/html \
		--build-dir $(BUILDDIR) --dist dist --sphinx-options "$(STRICT) $(FRESH_OPTION) $(SPHINXOPTS)"

clean: ## Remove build output (keeps .venv)
	rm -rf $(BUILDDIR) dist
