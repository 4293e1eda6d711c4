""""Take it home" in a real browser: the downloads are what they claim, new rows are
predicted with clear notices, and model files are checked (on the Naive Bayes page)."""
import io
import json
import re

import pandas as pd
import pytest

from engine.export import DANGEROUS_START
from engine.persist import model_from_json

from .conftest import exceptions, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

# The restaurant data (AIMA): an extra 'Example' id column, an unseen Type, a formula-like
# Patrons value, a missing Price.
NEW_ROWS = (b"Example,Alternate,Bar,Fri/Sat,Hungry,Patrons,Price,Raining,Reservation,Type,WaitEstimate\n"
            b"n1,Yes,No,No,Yes,Some,$$$,No,Yes,French,0-10\n"
            b"n2,No,Yes,Yes,No,=cmd(),,Yes,No,Sushi,>60\n")
MISSING_COLUMNS = b"Alternate,Type\nYes,Thai\n"


def open_section(page, app_url: str, query: str) -> None:
    page.goto(f"{app_url}/naive_bayes?{query}&nb_home=true")  # the expander's state is in the link
    wait_for_app(page)
    page.get_by_text("Predict new rows").first.wait_for(timeout=30_000)


def send(page, index: int, name: str, content: bytes, mime: str = "text/csv") -> None:
    page.locator('[data-testid="stExpander"] input[type="file"]').nth(index).set_input_files(
        {"name": name, "mimeType": mime, "buffer": content})
    page.get_by_text(name).first.wait_for(timeout=30_000)
    wait_for_app(page)


def fetch(page, button: str) -> bytes:
    with page.expect_download() as download:
        page.get_by_role("button", name=button).click()
    with open(download.value.path(), "rb") as f:
        return f.read()


def test_downloads_are_a_loadable_model_and_its_own_predictions(page, app_url):
    open_section(page, app_url, "data=iris")
    model = model_from_json(fetch(page, "Model as JSON"))
    table = pd.read_csv(io.BytesIO(fetch(page, "Test-set predictions (CSV)")))
    features = list(model.feature_names_in_)
    assert len(table) == 38 and {"true species", "prediction"} <= set(table.columns)  # 25% of 150
    # the file's predictions are the downloaded model's, to the last digit
    assert table["prediction"].tolist() == model.predict(table[features]).tolist()
    proba = model.predict_proba(table[features])
    for q, label in enumerate(model.classes_):
        assert table[f"P({label})"].tolist() == pytest.approx(proba[:, q], rel=1e-15)
    assert exceptions(page) == []


def test_new_rows_with_an_extra_column_an_unseen_value_and_a_missing_column(page, app_url):
    open_section(page, app_url, "data=restaurant")
    send(page, 0, "new-rows.csv", NEW_ROWS)
    notice = page.locator('[data-testid="stExpander"] [data-testid="stAlert"]').first
    notice.wait_for(timeout=30_000)
    text = notice.inner_text()
    assert "'Example'" in text and "'Sushi' (1 row(s)) did not occur" in text
    assert "'=cmd()'" in text and "Naive Bayes still predicts" in text
    frame = page.locator('[data-testid="stExpander"] [data-testid="stDataFrame"]')
    frame.first.wait_for(timeout=30_000)
    safe = fetch(page, "These predictions (CSV)").decode()
    assert "'=cmd()" in safe and not any(line.startswith(DANGEROUS_START) for line in safe.split(","))
    for width, height in ((1600, 1000), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        notice.scroll_into_view_if_needed()
        screenshot(page, f"take_home-new-rows-{width}")
    send(page, 0, "missing.csv", MISSING_COLUMNS)
    error = page.get_by_text(re.compile(r"lack the column\(s\) 'Bar', 'Fri/Sat'"))
    error.first.wait_for(timeout=30_000)
    assert page.get_by_role("button", name="Model as JSON").is_visible()  # the rest stays
    screenshot(page, "take_home-missing-column-1024")
    assert exceptions(page) == []


def test_a_typed_row_then_a_saved_and_a_tampered_model_file(page, app_url):
    open_section(page, app_url, "data=playtennis&nb_new_mode=Type+one+row&present=true")
    button = page.get_by_role("button", name="These predictions (CSV)")
    button.wait_for(timeout=30_000)
    typed = pd.read_csv(io.BytesIO(fetch(page, "These predictions (CSV)")))
    assert typed.columns[:3].tolist() == ["prediction", "P(No)", "P(Yes)"] and len(typed) == 1
    assert typed["prediction"][0] in ("No", "Yes")
    page.set_viewport_size({"width": 1024, "height": 768})
    button.scroll_into_view_if_needed()
    screenshot(page, "take_home-typed-present-1024")
    saved = fetch(page, "Model as JSON")
    send(page, 0, "model.json", saved, "application/json")  # the only uploader in this mode
    page.get_by_text(re.compile(r"A valid Glassbox model: MixedNB")).first.wait_for(timeout=30_000)
    document = json.loads(saved)
    document["estimator"] = "__import__"
    send(page, 0, "tampered.json", json.dumps(document).encode(), "application/json")
    refused = page.get_by_text(re.compile(r"This file is not a Glassbox model: it names an unknown"))
    refused.first.wait_for(timeout=30_000)
    refused.first.scroll_into_view_if_needed()
    screenshot(page, "take_home-tampered")
    assert exceptions(page) == []
