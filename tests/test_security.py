"""Security settings and limits a classroom server relies on, checked from the source.

* .streamlit/config.toml keeps XSRF and CORS protection on and states the upload limit
  that ui/state.py and ui/limits.py repeat.
* No pickle, marshal, shelve, eval, exec or yaml.load anywhere in the app's code: parsed
  with ``ast`` so a docstring that mentions pickle is fine, an import or a call is not.
* Every ``unsafe_allow_html=True`` passes a constant: a module-level UPPER_CASE name, a
  string literal or a call of ``chart_css`` (CSS built from numbers), never user text.
* Every ``st.cache_data`` / ``st.cache_resource`` in ui/ and app_pages/ is bounded by
  ``max_entries``, so thirty sessions cannot grow the server's memory without end.
* ui/limits.py: the work and row limits the pages call.
"""
from __future__ import annotations

import ast
import doctest
import tomllib
from pathlib import Path

import pytest

from ui import limits, state

ROOT = Path(__file__).resolve().parents[1]
APP_DIRS = ["engine", "viz", "ui", "app_pages"]
BANNED_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "cloudpickle", "joblib.load"}
BANNED_CALLS = {"eval", "exec", "compile", "__import__"}
SAFE_HTML_CALLS = {"chart_css"}


def app_sources() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in APP_DIRS:
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def where(path: Path, node: ast.AST) -> str:
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return f"{shown}:{node.lineno}"


def config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))


def test_xsrf_and_cors_protection_stay_on():
    server = config()["server"]
    assert server.get("enableXsrfProtection", True) is True
    assert server.get("enableCORS", True) is True


def test_upload_limit_is_stated_once_and_repeated_exactly():
    assert config()["server"]["maxUploadSize"] == state.MAX_UPLOAD_MB == limits.MAX_UPLOAD_MB
    assert limits.MAX_UPLOAD_MB <= 200  # Streamlit's default; a classroom never needs more


def test_sources_were_found():
    names = {p.relative_to(ROOT).as_posix() for p in app_sources()}
    assert {"app.py", "engine/data.py", "ui/state.py", "viz/tree_dot.py", "app_pages/data.py"} <= names


def _imported_modules(tree: ast.Module) -> list[tuple[ast.AST, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node, node.module)] + [(node, f"{node.module}.{a.name}") for a in node.names]
    return found


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        owner = call.func.value
        prefix = owner.id + "." if isinstance(owner, ast.Name) else ""
        return prefix + call.func.attr
    return None


@pytest.mark.parametrize("path", app_sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_pickle_eval_or_exec(path):
    tree = parse(path)
    bad = [f"{where(path, n)} imports {m}" for n, m in _imported_modules(tree)
           if m.split(".")[0] in BANNED_MODULES or m in BANNED_MODULES]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _called_name(node)
            if name in BANNED_CALLS or name in {"yaml.load", "pd.read_pickle", "np.load",
                                                "pandas.read_pickle", "numpy.load"}:
                bad.append(f"{where(path, node)} calls {name}")
    assert not bad, bad


def test_the_checker_sees_a_pickle_import_and_an_eval_call(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text('"""pickle is only mentioned here."""\nimport pickle\nx = eval("1")\n')
    tree = parse(sample)
    assert [m for _, m in _imported_modules(tree)] == ["pickle"]
    assert [_called_name(n) for n in ast.walk(tree) if isinstance(n, ast.Call)] == ["eval"]
    harmless = tmp_path / "ok.py"
    harmless.write_text('"""Never unpickle user data; never eval(...) it."""\n')
    assert not _imported_modules(parse(harmless))


def _module_constants(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant | ast.JoinedStr):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()}
    return names


def _html_argument_is_safe(arg: ast.AST, constants: set[str]) -> bool:
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return True
    if isinstance(arg, ast.Name):
        return arg.id in constants
    if isinstance(arg, ast.Call):
        return _called_name(arg) is not None and _called_name(arg).split(".")[-1] in SAFE_HTML_CALLS
    return False


def unsafe_html_violations(path: Path) -> list[str]:
    tree = parse(path)
    constants = _module_constants(tree)
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        unsafe = any(k.arg == "unsafe_allow_html" and not (
            isinstance(k.value, ast.Constant) and k.value.value is False) for k in node.keywords)
        if unsafe and not (node.args and _html_argument_is_safe(node.args[0], constants)):
            bad.append(f"{where(path, node)}: {ast.unparse(node)[:120]}")
    return bad


def test_unsafe_html_only_ever_carries_constants():
    bad = [v for path in app_sources() for v in unsafe_html_violations(path)]
    assert not bad, bad


def test_the_html_checker_refuses_user_text(tmp_path):
    sample = tmp_path / "page.py"
    sample.write_text(
        "import streamlit as st\nCSS = '<style></style>'\n"
        "st.markdown(CSS, unsafe_allow_html=True)\n"
        "st.markdown(chart_css(style), unsafe_allow_html=True)\n"
        "st.markdown(f'<b>{name}</b>', unsafe_allow_html=True)\n"
        "st.markdown(column, unsafe_allow_html=True)\n")
    bad = unsafe_html_violations(sample)
    assert len(bad) == 2 and ":5:" in bad[0] and ":6:" in bad[1]


def cache_decorators(path: Path) -> list[tuple[ast.AST, str, set[str]]]:
    found = []
    for node in ast.walk(parse(path)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for deco in node.decorator_list:
            call = deco if isinstance(deco, ast.Call) else None
            name = _called_name(call) if call else ast.unparse(deco)
            if name and name.split(".")[-1] in {"cache_data", "cache_resource"}:
                found.append((node, name, {k.arg for k in call.keywords} if call else set()))
    return found


def ui_sources() -> list[Path]:
    return sorted((ROOT / "ui").rglob("*.py")) + sorted((ROOT / "app_pages").rglob("*.py"))


def test_every_cache_is_bounded():
    caches = [(where(p, n), name, kw) for p in ui_sources() for n, name, kw in cache_decorators(p)]
    assert len(caches) >= 6, "expected the fit and data caches of ui/"
    unbounded = [f"{at} @{name}" for at, name, kw in caches if "max_entries" not in kw]
    assert not unbounded, unbounded


def test_the_cache_checker_sees_a_bare_decorator(tmp_path):
    sample = tmp_path / "controls.py"
    sample.write_text("import streamlit as st\n@st.cache_data\ndef f(x):\n    return x\n"
                      "@st.cache_resource(max_entries=2)\ndef g(x):\n    return x\n")
    assert [(name, kw) for _, name, kw in cache_decorators(sample)] == [
        ("st.cache_data", set()), ("st.cache_resource", {"max_entries"})]


def _empty_container(value: ast.AST | None) -> bool:
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, ast.List | ast.Set):
        return not value.elts
    return isinstance(value, ast.Call) and _called_name(value) in {
        "dict", "list", "set", "defaultdict", "collections.defaultdict", "OrderedDict"}


def test_no_module_level_container_filled_at_run_time_in_ui():
    """User data lives in st.session_state, never in a module global that all sessions share.

    Only ui/ is checked: its modules are imported once per server, while a page script in
    app_pages/ runs afresh on every rerun, so its top-level names belong to that run.
    """
    bad = [where(path, node) for path in sorted((ROOT / "ui").rglob("*.py"))
           for node in parse(path).body
           if isinstance(node, ast.Assign | ast.AnnAssign) and _empty_container(node.value)]
    assert not bad, bad


# --- ui/limits.py -------------------------------------------------------------------------

def test_limits_doctests_pass():
    result = doctest.testmod(limits, verbose=False)
    assert result.attempted >= 2 and result.failed == 0


def test_stated_limits():
    assert limits.MAX_TREES == 500 and limits.MAX_ROUNDS == 1_000


@pytest.mark.parametrize("kind", sorted(limits.MAX_WORK))
def test_work_at_the_budget_passes_and_one_more_model_is_refused(kind):
    budget, most = limits.MAX_WORK[kind], limits.MAX_MODELS[kind]
    rows = budget // most
    assert limits.check_work(rows, most, kind) is None
    message = limits.check_work(rows + 1, most, kind)
    assert message is not None and "too long" in message
    fewer = int(message.split("Choose at most ")[1].split()[0].replace(",", ""))
    assert fewer < most and limits.check_work(rows + 1, fewer, kind) is None


@pytest.mark.parametrize("kind", sorted(limits.MAX_WORK))
def test_more_models_than_allowed_is_refused_whatever_the_rows(kind):
    most = limits.MAX_MODELS[kind]
    message = limits.check_work(1, most + 1, kind)
    assert message is not None and f"{most:,}" in message


def test_a_thousand_tree_forest_on_100k_rows_is_refused_and_spambase_is_fine():
    assert limits.check_work(100_000, 1_000, "forest") is not None
    assert limits.check_work(100_000, 500, "forest") is not None
    assert limits.check_work(3_450, 500, "forest") is None  # spambase's training rows
    assert limits.check_work(3_450, 1_000, "boosting") is None


def test_an_unknown_kind_is_a_value_error():
    with pytest.raises(ValueError, match="kind must be one of"):
        limits.check_work(10, 10, "svm")
