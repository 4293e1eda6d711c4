"""One rule, one home: a parameter's resolution, a tolerance or a tie rule is defined once.

Two definitions drift apart (``max_features=0.7`` of 90 features once gave 62 features to
a tree and 63 to a forest). These tests read the source of ``engine/``, ``viz/`` and
``ui/``: each rule below is defined in exactly one module, and the numbers and idioms that
spell a rule out by hand appear only in that home.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for folder in ("engine", "viz", "ui") for p in (ROOT / folder).rglob("*.py"))

#: Each rule and the one module that defines it.
HOMES = {
    "resolve_max_features": "engine/tree/_builder.py",
    "resolve_count": "engine/tree/_builder.py",
    "TIE_TOLERANCE": "engine/tree/_criteria.py",
    "tie_floor": "engine/tree/_criteria.py",
    "FLOAT_NOISE": "engine/tree/_criteria.py",
    "plurality": "engine/tree/_tree.py",
    "MAX_CLASSES": "engine/_dataset.py",
    "grid_axis": "engine/inspection.py",
}

#: Hand-written copies of a rule: (what, pattern, the only module allowed to contain it).
SPELLED_OUT = [
    ("the tie tolerance 1e-12", re.compile(r"(?<![\w.])1e-12(?![\w])"), "engine/tree/_criteria.py"),
    ("machine epsilon as a tolerance", re.compile(r"finfo\([^)]*\)\.eps"),
     ("engine/tree/_criteria.py", "engine/tree/_chi2.py")),
    ("a two-feature boundary grid built by hand", re.compile(r"\bmeshgrid\("),
     "engine/inspection.py"),
    ("the plurality tie rule (last class wins)", re.compile(r"argmax\([^()]*\[[^\]]*::-1\]"),
     ("engine/tree/_tree.py", "engine/tree/_candidates.py")),
]


def _definitions(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _code_lines(path: Path):
    """(line number, line) of code; lines inside a string (docstrings, notes) and
    comments left out."""
    text = path.read_text(encoding="utf-8")
    strings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.end_lineno > node.lineno:
            strings.update(range(node.lineno, node.end_lineno + 1))
    for number, line in enumerate(text.splitlines(), start=1):
        if number not in strings:
            yield number, line.split("#", 1)[0]


@pytest.mark.parametrize("name, home", HOMES.items())
def test_each_rule_is_defined_in_one_module(name, home):
    defined_in = [str(p.relative_to(ROOT)) for p in SOURCES if name in _definitions(p)]
    assert defined_in == [home]


@pytest.mark.parametrize("what, pattern, homes", SPELLED_OUT, ids=[s[0] for s in SPELLED_OUT])
def test_no_rule_is_spelled_out_outside_its_home(what, pattern, homes):
    homes = (homes,) if isinstance(homes, str) else homes
    found = [f"{p.relative_to(ROOT)}:{number}: {line.strip()}"
             for p in SOURCES if str(p.relative_to(ROOT)) not in homes
             for number, line in _code_lines(p) if pattern.search(line)]
    assert not found, f"{what} written out by hand:\n" + "\n".join(found)


def test_the_patterns_catch_the_copies_they_name():
    tie, eps, grid, plurality = (pattern for _, pattern, _ in SPELLED_OUT)
    assert grid.search("gx, gy = np.meshgrid(xs, ys)")
    assert tie.search("tol = 1e-12 * np.maximum(best, imp)") and not tie.search("x = 1e-120")
    assert eps.search("_EPS = np.finfo(np.float64).eps")
    assert plurality.search("best = k - 1 - np.argmax(value[:, ::-1], axis=1)")
    assert not plurality.search("best = np.argmax(value, axis=1)")
