"""User text in Markdown shows as typed: ui.markdown.literal, the one escaper of the UI."""
from ui.markdown import literal


def test_every_markdown_mark_is_escaped_and_nothing_else():
    assert literal("price_$ (**net**)") == r"price\_\$ \(\*\*net\*\*\)"
    assert literal("Größe 3") == "Größe 3"
    assert literal(12.5) == r"12\.5"

