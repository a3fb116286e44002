# Autograd Lab. On a fresh Debian/Ubuntu machine:
#   make lab             install everything, open YOUR copies of the lessons (learner/) in JupyterLab
#   make lab LANG=zh     the same in Chinese (learner/zh/; a zh_* locale chooses it too)
#   make lab-solutions   instructors: open the lessons with their solutions (notebooks/, notebooks/zh/)
#   make test            install everything, run every test
PYTHON ?= python3
PYTEST_ARGS ?= -ra
TORCH_PIN := torch==2.13.0
# PyTorch's CPU wheels, looked at beside PyPI: on Linux, PyPI's torch is the CUDA build (several GB).
# Where this index cannot be reached (an offline mirror), pip says so and takes torch from the rest.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
STAMP_DIR := .build
INSTALL_STAMP := $(STAMP_DIR)/install.stamp

NOTEBOOKS := $(wildcard notebooks/*.ipynb)
NBVAL_SANITIZE := $(wildcard notebooks/sanitize.cfg)
NBVAL_ARGS := $(if $(NOTEBOOKS),--nbval notebooks $(if $(NBVAL_SANITIZE),--nbval-sanitize-with $(NBVAL_SANITIZE)))

.PHONY: lab lab-solutions learner test install sysdeps pydeps lint bench clean notebooks student html

LESSONS := $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb notebooks/zh/[0-9][0-9]_*.ipynb))

# The course's language: English, or Chinese for `make lab LANG=zh` (or a zh_CN... locale). The
# Chinese course runs JupyterLab with settings of its own that show its menus in Chinese (the
# zh_CN language pack is in the lessons extra); they are written once, so later choices stay.
# A bare LANG=zh is no C locale, so JupyterLab itself is started with C.UTF-8 then.
COURSE_LANG := $(if $(filter zh%,$(LANG)),zh,en)
ZH_SETTINGS := $(CURDIR)/$(STAMP_DIR)/jupyterlab-settings-zh
ZH_MENUS := $(ZH_SETTINGS)/@jupyterlab/translation-extension/plugin.jupyterlab-settings
ifeq ($(COURSE_LANG),zh)
LEARNER_DIR := learner/zh
SOLUTIONS_DIR := notebooks/zh
JUPYTER := env $(if $(filter zh,$(LANG)),LANG=C.UTF-8) JUPYTERLAB_SETTINGS_DIR=$(ZH_SETTINGS) \
	$(PYTHON) -m jupyter
else
LEARNER_DIR := learner
SOLUTIONS_DIR := notebooks
JUPYTER := $(PYTHON) -m jupyter
endif

# JupyterLab refuses to run as root (a Docker container's user) unless told to: told only then.
LAB_UID ?= $(shell id -u)
ALLOW_ROOT := $(if $(filter 0,$(LAB_UID)),--allow-root)

lab: install learner $(if $(filter zh,$(COURSE_LANG)),$(ZH_MENUS))
	$(JUPYTER) lab $(LEARNER_DIR)/ $(ALLOW_ROOT)

lab-solutions: install $(if $(filter zh,$(COURSE_LANG)),$(ZH_MENUS))
	$(JUPYTER) lab $(SOLUTIONS_DIR)/ $(ALLOW_ROOT)

$(ZH_MENUS):
	mkdir -p $(dir $@) && echo '{"locale": "zh_CN"}' > $@

# The learner's copies (gitignored): created on first use, new lessons added later, a learner's
# own edits never overwritten (a changed lesson arrives beside them): scripts/learner_copies.py.
learner:
	$(PYTHON) scripts/learner_copies.py --out learner --lang $(COURSE_LANG)

# The measuring tests (marker `perf`: they report times beside their targets, never assert them)
# first, alone, so their reports come from a machine as quiet as it gets; then everything else on
# both cores. pytest exit 5 means "no tests collected": reported, not treated as a failure.
test: install
	$(PYTHON) -m pytest -m perf $(PYTEST_ARGS) tests -s \
	  || { rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest: no perf tests collected"; else exit $$rc; fi; }
	$(PYTHON) -m pytest -n 2 --dist loadfile -m "not perf" $(PYTEST_ARGS) tests $(NBVAL_ARGS) \
	  || { rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest: no tests collected"; else exit $$rc; fi; }

install: sysdeps pydeps

sysdeps:
	bash scripts/install-system-deps.sh

# torch first, on its own, exactly pinned (the local CPU build), so pip never resolves another
# torch build while installing the rest; then the numba kernels compiled into their cache, so a
# learner's first CNN step takes about a second instead of ten (postBuild does the same on the
# conda/Binder route). Skipped when the stamp is newer
# than pyproject.toml and scripts/check_python_deps.py finds the install in place.
pydeps:
	@if [ -f $(INSTALL_STAMP) ] && [ $(INSTALL_STAMP) -nt pyproject.toml ] \
	  && (cd / && $(PYTHON) "$(CURDIR)/scripts/check_python_deps.py"); then \
	  echo "python deps: installed (stamp $(INSTALL_STAMP))"; \
	else \
	  $(PYTHON) -m pip install "$(TORCH_PIN)" --extra-index-url $(TORCH_INDEX) && \
	  $(PYTHON) -m pip install -e ".[dev]" --config-settings editable_mode=compat && \
	  (cd / && $(PYTHON) -m minigrad.utils.warm_kernels) && \
	  mkdir -p $(STAMP_DIR) && touch $(INSTALL_STAMP); \
	fi

lint: pydeps
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .

bench: install
	@if [ -d benchmarks ]; then $(PYTHON) -m benchmarks; \
	else echo "bench: no benchmarks/ directory yet"; fi

# Authors: re-execute every lesson in place so its stored outputs (what nbval compares) are fresh.
# Widget state is not stored: the explorer's outputs carry their own static SVG fallback. Each gets
# the kernelspec JupyterLab writes (scripts/normalise_kernelspec.py), so opening it changes nothing.
ALL_NOTEBOOKS := $(LESSONS) notebooks/explorer_demo.ipynb notebooks/zh/explorer_demo.ipynb \
	notebooks/next_steps.ipynb notebooks/zh/next_steps.ipynb
notebooks: install
	$(PYTHON) scripts/normalise_kernelspec.py $(ALL_NOTEBOOKS)
	@for nb in $(ALL_NOTEBOOKS); do \
	  echo "executing $$nb"; \
	  (cd $$(dirname $$nb) && $(PYTHON) -m jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.store_widget_state=False --ExecutePreprocessor.timeout=120 \
	    "$$(basename $$nb)") || exit 1; done

# Student copies: solutions replaced by stubs, outputs cleared, written to student/ (gitignored).
student:
	$(PYTHON) scripts/make_student_copies.py --out student
	$(PYTHON) scripts/make_student_copies.py --src notebooks/zh --out student/zh

# Static HTML of the lessons from their stored outputs: offline, no JavaScript (scripts/export_html.py).
html:
	$(PYTHON) scripts/export_html.py --out artifacts/html

clean:
	rm -rf $(STAMP_DIR) build *.egg-info artifacts student  # (never learner/: the learner's work)
