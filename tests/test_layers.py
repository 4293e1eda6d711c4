"""The arrows between layers point one way: engine ← viz ← ui/pages, store ← ui (DESIGN.md)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "engine": {"streamlit", "plotly", "graphviz", "viz", "ui", "app_pages", "sklearn", "scipy"},
    "viz": {"streamlit", "ui", "app_pages", "sklearn"},
    "ui": {"sklearn"},
    "app_pages": {"sklearn"},
    "store": {"streamlit", "plotly", "graphviz", "viz", "ui", "app_pages", "sklearn", "scipy"},
}


#: Functions whose body may import what their layer may not: ``__sklearn_tags__`` describes
#: an engine estimator to scikit-learn, and only scikit-learn calls it, so importing
#: scikit-learn there never runs unless it is already in use (test_sklearn_interop imports
#: the whole engine with scikit-learn blocked).
CALLED_ONLY_BY_THE_ORACLE = {"engine": {"__sklearn_tags__"}}


def imported_modules(path: Path, exempt_functions: frozenset[str] = frozenset()) -> set[str]:
    """Top-level names of the modules ``path`` imports, outside ``exempt_functions``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exempt = {id(node)
              for function in ast.walk(tree)
              if isinstance(function, ast.FunctionDef) and function.name in exempt_functions
              for node in ast.walk(function)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in exempt:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_point_one_way(layer):
    files = sorted((ROOT / layer).rglob("*.py"))
    assert files, f"{layer}/ has no Python files"
    exempt = frozenset(CALLED_ONLY_BY_THE_ORACLE.get(layer, ()))
    offenders = {
        str(f.relative_to(ROOT)): sorted(imported_modules(f, exempt) & FORBIDDEN[layer])
        for f in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_app_entry_imports_no_oracle():
    assert "sklearn" not in imported_modules(ROOT / "app.py")


def test_no_pickle_or_eval_of_user_data_in_app_code():
    # Uploaded data is parsed by pandas only; nothing the user sends is unpickled or evaluated.
    for layer in ("engine", "viz", "ui", "app_pages", "store"):
        for f in (ROOT / layer).rglob("*.py"):
            mods = imported_modules(f)
            assert "pickle" not in mods, f
            tree = ast.parse(f.read_text(encoding="utf-8"))
            calls = {n.func.id for n in ast.walk(tree)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            assert not calls & {"eval", "exec"}, f


def _calls(path: Path) -> set[str]:
    """Dotted names of what a file calls (``st.stop``) and the keywords it passes."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            names.add(ast.unparse(node.func))
            names.update(f"{kw.arg}=" for kw in node.keywords if kw.arg)
    return names


@pytest.mark.parametrize("layer", ["ui", "app_pages"])
def test_one_owner_of_the_url(layer):
    """Every value a link carries goes through ui/url.py: no widget is bound to the URL by
    Streamlit (its binding belongs to one page and leaves on a page switch), no code but
    ui/url.py writes the query, and no page ends with st.stop() (after it the URL could
    not be written)."""
    for path in sorted((ROOT / layer).rglob("*.py")):
        if path.name == "url.py":
            continue
        calls, text = _calls(path), path.read_text(encoding="utf-8")
        assert "bind=" not in calls and "st.stop" not in calls, path
        assert "st.query_params[" not in text and "st.query_params.from_dict" not in text, path
