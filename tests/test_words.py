"""Words a student knows: the app, its code and its docs cite public sources, not the
internal notes.

"Seed 000" next to the sidebar's "Random seed" reads as a random seed, and the notes'
figure numbers (Fig. 8.51) point nowhere a student can look. Published numbers such as
ESL's Fig. 9.3 or AIMA's Fig. 18.3 are fine.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Lecture-note ids ("seed 000", "Seed 004's") and the notes' figure numbers.
FORBIDDEN = {
    "lecture-note id": re.compile(r"(?i)\bseeds? ?00\d|\bthe seeds'"),
    "figure of the notes": re.compile(r"(?i)\bfig(ure)?\.? ?(7\.\d+|8\.\d+|12\.\d+)\b"),
}


def scanned_files() -> list[Path]:
    """What a user or a reader of the code sees: the app, its code, README.md and docs/."""
    files = [ROOT / "app.py", ROOT / "sample_data" / "catalog.json", ROOT / "README.md"]
    for folder in ("app_pages", "ui", "viz", "engine"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return files + sorted((ROOT / "docs").glob("*.md"))


def test_the_scan_covers_the_readme_and_the_docs():
    names = {path.relative_to(ROOT).as_posix() for path in scanned_files()}
    assert {"README.md", "docs/limits.md", "docs/references.md", "docs/model-format.md"} <= names


def offences(text: str) -> list[tuple[int, str, str]]:
    """(line number, what, line) for every forbidden phrase in ``text``."""
    return [(number, what, line.strip())
            for number, line in enumerate(text.splitlines(), start=1)
            for what, pattern in FORBIDDEN.items() if pattern.search(line)]


@pytest.mark.parametrize("text, hits", [
    ("Seed 004 writes S_{t+1}", 1),
    ("Notation of seed 000: f̂_t", 1),
    ('"title": "Loan applications (seed 000)"', 1),
    ("(seed002's lemma)", 1),
    ("Gini (seeds 000, 002, 003)", 1),
    ("the notation is the seeds': P(c | x)", 1),
    ("Seed 000, Fig. 8.51. Lowest test error", 2),
    ("Figure 7.33 and figure 12.71", 1),
    ("Random seed", 0),
    ("random_state: the seed 0 of the split", 0),
    ("Hastie et al. (2009), Fig. 9.3; AIMA Fig. 18.3", 0),
])
def test_the_patterns_catch_note_references_and_nothing_else(text, hits):
    assert len(offences(text)) == hits


def test_app_code_and_docs_cite_no_lecture_notes():
    found = [f"{path.relative_to(ROOT)}:{number}: {what}: {line}"
             for path in scanned_files()
             for number, what, line in offences(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)
