# Bilingual, executable LLM glossary.  `make help` lists the targets.
#
# Everything runs inside .venv, created and filled from pyproject.toml on first use, with
# every transitive dependency pinned by constraints.txt (`make constraints` refreshes it);
# the stamp file means later runs only reinstall when either file changes.

# The Python that creates .venv: python3 when it is 3.11 or newer, else the newest
# python3.1x on PATH (evaluated only when .venv is (re)created).  tools/venv_python.py
# says in one message what to install when none is new enough.  The search stops at the
# first candidate that fits (`or`), and runs once: its answer replaces PYTHON's definition
# (`eval`), so the recipe's second $(PYTHON) does not start every candidate again.
PYTHON_CANDIDATES := python3 python3.14 python3.13 python3.12 python3.11
new_enough = $(if $(shell $(1) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo yes),$(1))
first_new_enough = $(if $(1),$(or $(call new_enough,$(firstword $(1))),$(call first_new_enough,$(wordlist 2,$(words $(1)),$(1)))))
PYTHON      ?= $(eval PYTHON := $(or $(call first_new_enough,$(PYTHON_CANDIDATES)),python3))$(PYTHON)
VENV        := .venv
BIN         := $(VENV)/bin
INSTALLED   := $(VENV)/.installed
CONSTRAINTS := constraints.txt
# pyproject.toml's dependency groups (PEP 735) that .venv gets: the project's own work, never published.
DEPENDENCY_GROUPS := docs test lint dev
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
.PHONY: help install html doctest print pytest site-check a11y-deps lint test check clean gettext intl-update intl-stats \
	expected-terms freshness newest dist livehtml constraints venv-stale jscheck-deps jscheck

help: ## List the targets (a % is a language: en or zh_TW)
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_%-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# .venv is remade when its Python is gone (a removed or upgraded system Python) or
# older than 3.11: the phony prerequisite forces the stamp's rule, whose first step
# (tools/venv_python.py) says why and removes the old .venv.
VENV_PYTHON_OK := $(shell $(BIN)/python -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null)
ifneq ($(VENV_PYTHON_OK),1)
$(INSTALLED): venv-stale
endif
venv-stale: ;

# PIP_CONSTRAINT (not -c) also reaches pip's isolated build environment, so the
# setuptools that builds the editable install is pinned too.  The glossary's Sphinx
# extensions (docs/_ext/llmglossary) are a second editable install, so conf.py imports
# them without a sys.path entry and the llmcalc wheel does not ship them.
EXTENSIONS_PROJECT := docs/_ext/pyproject.toml
$(INSTALLED): pyproject.toml $(EXTENSIONS_PROJECT) $(CONSTRAINTS)
	@$(PYTHON) tools/venv_python.py $(VENV)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	PIP_CONSTRAINT=$(CURDIR)/$(CONSTRAINTS) $(BIN)/python -m pip install --quiet pip
	PIP_CONSTRAINT=$(CURDIR)/$(CONSTRAINTS) $(BIN)/python -m pip install --quiet -e '.[teach]' -e ./docs/_ext \
		$(addprefix --group ,$(DEPENDENCY_GROUPS))
	touch $@

install: $(INSTALLED) ## Create .venv: llmcalc (llm-glossary-calc) and the extensions, with the docs, test, lint and dev groups

constraints: $(INSTALLED) ## Re-pin every dependency (direct and transitive) into constraints.txt
	$(BIN)/uv pip compile pyproject.toml build-requirements.in --all-extras \
		$(addprefix --group pyproject.toml:,$(DEPENDENCY_GROUPS)) --python-version 3.11 --quiet --upgrade -o $(CONSTRAINTS)

html: $(addprefix html-,$(LANGUAGES)) ## Build English and zh_TW HTML into _build/html/<lang>/
	cp docs/_root/index.html $(BUILDDIR)/html/index.html

# Each language has its own doctree directory.  The other builders of a language reuse
# the environment its HTML build saved, so they run one after another, never side by
# side (make -j): html-<lang>, then doctest-, text-, latex-<lang>, and dist's EPUB.
# A translated build checks its catalogs first: Sphinx and Babel read a catalog that does not
# parse (an unterminated string) without a word and show the page in English, so msgfmt
# (tools/pocheck.py) names the file and line and the build stops.  A message left
# untranslated fails the build itself, at its page (docs/_ext/llmglossary/untranslated.py).
catalogs = $(wildcard locales/$(1)/LC_MESSAGES/*.po)
html-%: $(INSTALLED) ## Build one language, e.g. make html-zh_TW
	@$(if $(call catalogs,$*),$(BIN)/python tools/pocheck.py $(call catalogs,$*))
	$(SPHINXBUILD) $(FRESH_OPTION) -b html -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/html/$*

# Each doctest-<lang> prints its count and failures (tools/doctest_summary.py).
doctest: $(addprefix doctest-,$(LANGUAGES)) ## Run the pages' examples in both languages

doctest-%: html-% ## Run one language's page examples, e.g. make doctest-en (builds its HTML first)
	$(SPHINXBUILD) -b doctest -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/doctest/$*
	@$(BIN)/python tools/doctest_summary.py $(BUILDDIR)/doctest/$*

# Print and plain-text output: every page must build without JavaScript (calculators,
# concept map and previews degrade to their explanation).  LaTeX sources only, no PDF.
print: $(foreach lang,$(LANGUAGES),text-$(lang) latex-$(lang)) ## Text and LaTeX builds of both languages

text-%: doctest-% ## Plain-text build of one language into _build/text/<lang>/
	$(SPHINXBUILD) -b text -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/text/$*

latex-%: text-% ## LaTeX sources of one language into _build/latex/<lang>/ (no PDF)
	$(SPHINXBUILD) -b latex -D language=$* -d $(BUILDDIR)/doctrees/$* docs $(BUILDDIR)/latex/$*

# The server serves one folder, $(BUILDDIR)/live: English at its root, zh_TW in zh_TW/
# (rebuilt after English on every change), and the language switch links between them
# (language_switch_layout=live, docs/_ext/llmglossary/langswitch.py).
LIVE_LAYOUT := -D language_switch_layout=live
LIVE_PORT ?= 8000
livehtml: $(INSTALLED) ## Serve English at / and zh_TW at /zh_TW/, rebuilt and reloaded on every change (LIVE_PORT=8000)
	$(BIN)/sphinx-autobuild --port $(LIVE_PORT) -c . $(STRICT) $(SPHINXOPTS) -b html $(LIVE_LAYOUT) -d $(BUILDDIR)/doctrees/live \
		--post-build "$(SPHINXBUILD) -b html -D language=zh_TW $(LIVE_LAYOUT) -d $(BUILDDIR)/doctrees/live-zh_TW \
		docs $(BUILDDIR)/live/zh_TW" \
		--watch docs/_ext --watch docs/_static --watch locales docs $(BUILDDIR)/live

gettext: $(INSTALLED) ## Extract the English messages into _build/gettext/*.pot
	$(SPHINXBUILD) $(FRESH_OPTION) -b gettext -d $(BUILDDIR)/doctrees/gettext docs $(BUILDDIR)/gettext

intl-update: gettext ## Merge new English messages into locales/zh_TW/LC_MESSAGES/*.po and rewrap every catalog
	$(BIN)/python tools/intl_update.py $(BUILDDIR)/gettext locales/zh_TW/LC_MESSAGES

expected-terms: html-en ## Rewrite tests/data/expected_terms.tsv from the built English pages (after adding a term)
	$(BIN)/python tools/termlists.py $(BUILDDIR)/html/en tests/data/expected_terms.tsv

# Needs the package index and takes minutes, so it is not part of `make test`: a fresh
# virtualenv of the newest releases on the newest Python, both builds and the fast tier.
newest: $(INSTALLED) ## Try the newest releases on the newest Python: what moved past constraints.txt, what broke
	$(BIN)/python tools/newest.py

# Needs the package index (pip index versions), so it is not part of `make test`;
# tests/test_freshness.py checks its parsing offline.
freshness: $(INSTALLED) ## Which versioned references and recordings are behind their library's newest release
	$(BIN)/python tools/freshness.py

intl-stats: $(INSTALLED) ## Translated / fuzzy / untranslated messages per zh_TW catalog
	$(BIN)/python tools/intl_stats.py locales/zh_TW/LC_MESSAGES

lint: $(INSTALLED) ## ruff over the repository, mypy --strict over llmcalc and docs/_ext, tsc over the widgets' JavaScript
	$(BIN)/ruff check .
	$(BIN)/mypy
	@$(MAKE) --no-print-directory jscheck

# The site checks read _build/html and _build/doctest: they depend on building them.
site-check: html doctest print

pytest: site-check a11y-deps $(INSTALLED) ## Unit tests, llmcalc doctests and checks of the freshly built site
	$(BIN)/python -m pytest

# The two tiers.  Each runs its phases through tools/phases.py, which names the phase
# running and ends with the wall-clock and CPU time of each.  A phase is a make of its
# own (the + lets `make -n test` show them); -o keeps it from re-running the phases
# before it (FRESH=1 would rebuild them).
PHASES = $(BIN)/python tools/phases.py
SUBMAKE = $(MAKE) --no-print-directory

check: $(INSTALLED) ## The inner loop: lint, unit and tiny-site tests; no full-site build (about a minute)
	+@$(PHASES) "make check" \
		"lint=$(SUBMAKE) lint" \
		"pytest=$(BIN)/python -m pytest -q -m 'not site and not heavy'"

# The zh_TW pages' examples are the English ones, character for character (code is never
# translated; tests/test_site.py checks it), so the doctest phase runs them once, in English.
test: $(INSTALLED) ## Everything CI runs: lint, both builds, doctests, text and LaTeX, the offline bundles, pytest
	+@$(PHASES) "make test" \
		"lint=$(SUBMAKE) lint" \
		"html=$(SUBMAKE) html" \
		"doctest=$(SUBMAKE) -o html-en doctest-en" \
		"print=$(SUBMAKE) $(addprefix -o doctest-,$(LANGUAGES)) print" \
		"dist=$(SUBMAKE) -o html dist" \
		"pytest=$(SUBMAKE) -o site-check pytest"

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

# TypeScript's checker for the widgets' scripts, pinned the same way (tests/jscheck/package-lock.json).
# tests/jscheck/tsconfig.json takes every docs/_ext/llmglossary/static/*.js (a glob: a new script
# is checked as it lands) and the search scorer template, with the types they share (tests/jscheck/*.d.ts).
JSCHECK := tests/jscheck
TSC := $(JSCHECK)/node_modules/.bin/tsc
$(JSCHECK)/node_modules/.installed: $(JSCHECK)/package.json $(JSCHECK)/package-lock.json
	npm ci --prefix $(JSCHECK) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

# Without npm a contributor's `make lint` says the check is skipped; in CI (.ci/run installs npm) it fails.
jscheck-deps: ## Install TypeScript (npm ci in tests/jscheck) for the JavaScript type check
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(JSCHECK)/node_modules/.installed; \
	elif [ -n "$$CI" ]; then echo "npm not found: CI is set, so the JavaScript type check may not skip"; exit 1; \
	else echo "npm not found: the JavaScript type check (tsc, tests/jscheck) is skipped (apt-get install npm)"; fi

jscheck: jscheck-deps ## tsc --noEmit over docs/_ext/llmglossary/static/*.js (part of make lint)
	@if [ -x $(TSC) ]; then echo "$(TSC) -p $(JSCHECK)/tsconfig.json"; $(TSC) -p $(JSCHECK)/tsconfig.json; fi

dist: html ## Offline bundles per language: dist/llm-glossary-<lang>-html.zip and .epub, checked
	$(BIN)/python tools/make_dist.py --languages $(LANGUAGES) --html-dir $(BUILDDIR)/html \
		--build-dir $(BUILDDIR) --dist dist --sphinx-options "$(STRICT) $(SPHINXOPTS)"

clean: ## Remove build output (keeps .venv)
	rm -rf $(BUILDDIR) dist
