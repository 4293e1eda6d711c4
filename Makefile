# Two commands on a fresh machine with Python 3.11+ and pip:
#   make run    installs into .venv and starts the app on http://localhost:8501
#   make test   installs the test tools into .venv and runs every test
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test bench lint clean

$(VENV)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements-dev.txt requirements.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m streamlit run app.py

test: $(VENV)/.dev
	$(PY) -m pytest

bench: $(VENV)/.dev
	$(PY) bench/run_all.py

lint: $(VENV)/.dev
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
