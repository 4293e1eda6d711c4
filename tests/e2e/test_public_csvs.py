"""Public CSVs nobody here wrote, uploaded as a student would (issue 31).

Each file comes from a package that ships it (plotly is a dependency of the app;
palmerpenguins and vega_datasets are test dependencies). For each: the target Glassbox
picks, the columns it leaves out, and a decision tree whose diagram has no label longer
than 80 characters.
"""
from __future__ import annotations

import gzip
from importlib.resources import files

import pytest

from ..conftest import data_path
from .conftest import exceptions, screenshot, upload, wait_for_app

pytestmark = pytest.mark.e2e


def _read(package, path: str | None = None) -> bytes:
    """A file a package ships, or the bytes a generator (``package``) makes."""
    if callable(package):
        return package()
    data = files(package).joinpath(path).read_bytes()
    return gzip.decompress(data) if path.endswith(".gz") else data


def _passenger_list() -> bytes:
    """A passenger list in the shape of the well-known 891-row one (its published column
    description), regenerated here: no package ships the original. One row a passenger:
    an id, survival 0/1 (second, not last), class, name, sex, age with gaps, relatives,
    a ticket code (about 680 distinct), a fare, a cabin (mostly missing, about 150
    distinct) and the port last. Survival depends on sex, class and age as it did."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1912)
    n = 891
    pclass = rng.choice([1, 2, 3], n, p=[0.24, 0.21, 0.55])
    sex = rng.choice(["male", "female"], n, p=[0.65, 0.35])
    age = np.round(rng.gamma(6, 5, n), 1)
    odds = -1.2 + 2.5 * (sex == "female") - 0.9 * (pclass - 2) - 0.02 * (age - 30)
    survived = (rng.random(n) < 1 / (1 + np.exp(-odds))).astype(int)
    surnames = [f"Surname{k}" for k in range(600)]
    titles = np.where(sex == "male", "Mr.", rng.choice(["Mrs.", "Miss."], n))
    prefixes = ["", "", "", "PC ", "A/5 ", "C.A. ", "STON/O2. ", "SOTON/O.Q. "]
    codes = [f"{rng.choice(prefixes)}{v}" for v in rng.integers(10_000, 400_000, 680)]
    tickets = rng.choice(codes, n)
    cabins = np.where(pclass == 1, [f"{rng.choice(list('ABCDE'))}{rng.integers(1, 150)}"
                                    for _ in range(n)], None)
    cabins[rng.random(n) < 0.1] = None
    frame = pd.DataFrame({
        "PassengerId": np.arange(1, n + 1), "Survived": survived, "Pclass": pclass,
        "Name": [f"{rng.choice(surnames)}, {t} Given{k}" for k, t in enumerate(titles)],
        "Sex": sex, "Age": np.where(rng.random(n) < 0.2, np.nan, age),
        "SibSp": rng.poisson(0.5, n), "Parch": rng.poisson(0.4, n), "Ticket": tickets,
        "Fare": np.round(np.exp(rng.normal(3.6 - 0.6 * (pclass - 1), 0.5)), 4),
        "Cabin": cabins, "Embarked": rng.choice(["S", "C", "Q"], n, p=[0.72, 0.19, 0.09]),
    })
    return frame.to_csv(index=False).encode()


# name, (package, path in it), the target, columns left out (kind shown on the Data page)
FILES = [
    ("passengers.csv", (_passenger_list,), "Survived",
     {"PassengerId": "id", "Name": "text", "Ticket": "id", "Cabin": "id"}),
    ("penguins.csv", ("palmerpenguins", "data/penguins.csv"), "species", {}),
    ("penguins-raw.csv", ("palmerpenguins", "data/penguins-raw.csv"), "Species",
     {"Individual ID": "id", "Sample Number": "id", "Date Egg": "date", "Region": "constant",
      "Stage": "constant"}),
    ("tips.csv", ("plotly", "package_data/datasets/tips.csv.gz"), "time", {}),
    ("gapminder.csv", ("plotly", "package_data/datasets/gapminder.csv.gz"), "continent", {}),
    ("seattle-weather.csv", ("vega_datasets", "_data/seattle-weather.csv"), "weather",
     {"date": "date"}),
    ("la-riots.csv", ("vega_datasets", "_data/la-riots.csv"), "type",
     {"first_name": "id", "last_name": "id", "death_date": "date", "address": "text",
      "neighborhood": "id"}),
]


def test_each_file_gets_its_target_and_leaves_out_what_cannot_generalise():
    from engine.data import (
        DATE_PARTS,
        default_features,
        guess_target,
        infer_schema,
        load_csv,
        with_date_parts,
    )

    for name, source, target, left_out in FILES:
        frame = with_date_parts(load_csv(_read(*source)))
        schema = infer_schema(frame)
        assert guess_target(frame, schema)[0] == target, name
        assert {c: schema.loc[c, "kind"] for c in left_out} == left_out, name
        # a date's year, month and weekday are offered beside it, and start left out too
        parts = [f"{c} {p}" for c, kind in left_out.items() if kind == "date" for p in DATE_PARTS]
        assert set(parts) <= set(frame.columns), name
        assert not (set(left_out) | set(parts)) & set(default_features(schema, target)), name


@pytest.mark.parametrize("name, source, target, left_out", FILES, ids=[f[0] for f in FILES])
def test_a_public_csv_opens_on_the_view_a_teacher_would_choose(browser, app_url, name, source,
                                                               target, left_out):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.goto(app_url)
    wait_for_app(page)
    upload(page, name, _read(*source))
    assert exceptions(page) == []
    assert page.get_by_role("combobox", name="Target column").input_value() == target
    sentence = page.get_by_text(f"Predicting {target}").first.inner_text()
    assert "your choice" not in sentence and ":" in sentence  # the reason is given
    screenshot(page, f"public-{name}-data")

    page.locator('[data-testid="stSidebar"]').get_by_role(
        "link", name="Decision Tree", exact=True).click()
    wait_for_app(page)
    assert exceptions(page) == []
    svg = page.locator('[data-testid="stGraphVizChart"] svg')
    svg.wait_for(timeout=30_000)
    texts = svg.locator("text").all_text_contents()
    assert texts and max(len(t) for t in texts) <= 80, max(texts, key=len)
    used = set(page.locator('[data-testid="stGraphVizChart"] svg .node text').all_text_contents())
    for column in left_out:  # no split on a column that starts excluded
        assert not any(t.startswith(f"{column} ") for t in used), (column, used)
    screenshot(page, f"public-{name}-tree")
    context.close()


def _leaking_table() -> bytes:
    """90 passengers whose lifeboat number ('13' or 'none') gives their survival away."""
    rows = ["age,boat,survived"] + [f"{20 + i % 50},{'13' if i % 3 else 'none'},"
                                    f"{'yes' if i % 3 else 'no'}" for i in range(90)]
    return "\n".join(rows).encode()


def test_a_leaking_column_is_flagged_and_one_click_leaves_it_out(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "leak.csv", _leaking_table())
    assert page.get_by_text("boat alone predicts survived for 100.0%").first.is_visible()
    page.get_by_role("button", name="Leave boat out").click()
    wait_for_app(page)
    assert page.get_by_text("alone predicts").count() == 0
    assert page.locator('[data-testid="stMetricValue"]').nth(1).inner_text() == "1"
    assert exceptions(page) == []


def test_a_model_page_says_when_a_column_gives_the_answer_away(page, app_url):
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "leak.csv", _leaking_table())
    page.locator('[data-testid="stSidebar"]').get_by_role(
        "link", name="Decision Tree", exact=True).click()
    wait_for_app(page)
    assert page.get_by_text("this model may only be looking the answer up").first.is_visible()
    page.get_by_role("button", name="Leave boat out").click()
    wait_for_app(page)
    assert page.get_by_text("looking the answer up").count() == 0
    svg = page.locator('[data-testid="stGraphVizChart"] svg')
    svg.wait_for(timeout=30_000)
    assert not any(t.startswith("boat") for t in svg.locator("text").all_text_contents())
    assert exceptions(page) == []


def test_a_table_with_no_feature_left_offers_its_columns_to_tick(page, app_url):
    """Order codes and amounts: the codes start excluded (an identifier), so nothing is
    left to learn the amount from. The message asks for a column to be included on the
    Data page, and the page shows the columns under it: one tick, and the table trains."""
    from .conftest import _settled_box

    rows = ["order,amount"] + [f"A{i:04d},{(i * 37) % 101 + 0.5}" for i in range(60)]
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "orders.csv", "\n".join(rows).encode())
    assert page.get_by_text("No feature columns are left").first.is_visible()
    editor = page.locator('[data-testid="stDataFrameResizable"]').first
    editor.scroll_into_view_if_needed()
    grid = _settled_box(page, editor)
    # the "use" box of the first row (order): a header row, then rows of 35 pixels
    page.mouse.click(grid["x"] + grid["width"] * 0.176, grid["y"] + 52)
    page.get_by_text("Features used").first.wait_for(timeout=15_000)
    wait_for_app(page)
    assert page.get_by_text("No feature columns are left").count() == 0
    assert page.locator('[data-testid="stMetricValue"]').nth(1).inner_text() == "1"
    assert exceptions(page) == []
    screenshot(page, "no-feature-left-ticked")


def test_a_uci_data_file_without_a_header_reads_its_first_line_as_a_row(page, app_url):
    """UCI's spambase.data: a ``.data`` name, no header, the class last. The uploader takes
    it, the first line stays a row, and the class is the guessed target."""
    lines = data_path("spambase.csv").read_text().splitlines()[1:]  # without its header
    page.goto(app_url)
    wait_for_app(page)
    upload(page, "spambase.data", "\n".join(lines).encode())
    assert page.get_by_role("combobox", name="Target column").input_value() == "column 58"
    assert page.get_by_text("Line 1 holds numbers").first.is_visible()
    assert page.locator('[data-testid="stMetricValue"]').first.inner_text() == f"{len(lines):,}"
    assert exceptions(page) == []


def test_a_count_line_above_the_rows_offers_the_reading_that_works(page, app_url):
    """scikit-learn's wine_data.csv starts "178,13,class_0,class_1,class_2" above rows of
    14 numbers and no header: refused as it is, read with one click."""
    page.goto(app_url)
    wait_for_app(page)
    content = _read("sklearn", "datasets/data/wine_data.csv")
    page.locator('input[type="file"]').set_input_files(
        {"name": "wine_data.csv", "mimeType": "text/csv", "buffer": content})
    wait_for_app(page)
    assert page.get_by_text("wine_data.csv could not be used").first.is_visible()
    assert page.get_by_role("button", name="Skip line 1; line 2 is the header").count() == 0
    page.get_by_role("button", name="Skip line 1 (a title or a count); the file has no "
                                    "header row").click()
    wait_for_app(page)
    assert page.get_by_text("Your file: wine_data.csv").first.is_visible()
    assert page.locator('[data-testid="stMetricValue"]').first.inner_text() == "178"
    assert page.get_by_role("combobox", name="Target column").input_value() == "column 14"
    assert page.locator('[data-testid="stMetricValue"]').nth(2).inner_text() == "3"  # classes
    assert exceptions(page) == []
    screenshot(page, "public-wine_data-reading")
