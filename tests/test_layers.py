"""The arrows between layers point one way: engine ← viz ← ui/pages (DESIGN.md)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "engine": {"streamlit", "plotly", "graphviz", "viz", "ui", "app_pages", "sklearn", "scipy"},
    "viz": {"streamlit", "ui", "app_pages", "sklearn"},
    "ui": {"sklearn"},
    "app_pages": {"sklearn"},
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_point_one_way(layer):
    files = sorted((ROOT / layer).rglob("*.py"))
    assert files, f"{layer}/ has no Python files"
    offenders = {
        str(f.relative_to(ROOT)): sorted(imported_modules(f) & FORBIDDEN[layer]) for f in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_app_entry_imports_no_oracle():
    assert "sklearn" not in imported_modules(ROOT / "app.py")


def test_no_pickle_or_eval_of_user_data_in_app_code():
    # Uploaded data is parsed by pandas only; nothing the user sends is unpickled or evaluated.
    for layer in ("engine", "viz", "ui", "app_pages"):
        for f in (ROOT / layer).rglob("*.py"):
            mods = imported_modules(f)
            assert "pickle" not in mods, f
            tree = ast.parse(f.read_text(encoding="utf-8"))
            calls = {n.func.id for n in ast.walk(tree)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            assert not calls & {"eval", "exec"}, f
