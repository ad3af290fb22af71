"""What runs trade: λ inversions found among the runs of one k (and only there), the note that explains them, the
points of the trade-off picture (one per setting, equal losses merged), and the labelled scatter itself."""

from __future__ import annotations

import re

from anonymizer.kanon.tradeoff import RunLoss, inversion_note, lambda_inversions, tradeoff_points
from anonymizer.platform.charts import scatter_chart


def run(k, lam, a, x, *, strategy="mondrian", persons=23, classes=9, cuts=8):
    return RunLoss(k=k, strategy=strategy, relational_weight=None if strategy == "gdf" else lam, ncp_relational=a,
                   ncp_textual=x, persons=persons, classes=classes, cuts=cuts)


# Measured on the first 40 rows of blogs_1k.csv (23 persons; tests/kanon/web/test_runs_tradeoff_browser.py runs
# them): at k = 2,
# λ = 0.5 lost more text than λ = 1; at k = 3, λ = 0 lost more text than λ = 0.5.
SMALL = [run(2, 0, 0.505, 0.926, classes=10, cuts=9), run(2, 0.5, 0.318, 0.979, classes=9, cuts=8),
         run(2, 1, 0.315, 0.975, classes=9, cuts=8), run(3, 0, 0.623, 0.980, classes=6, cuts=5),
         run(3, 0.5, 0.351, 0.979, classes=7, cuts=6), run(3, 1, 0.349, 0.992, classes=7, cuts=6)]


def test_inversions_are_pairs_of_one_k_where_the_smaller_lambda_lost_more_text_or_less_of_the_columns():
    found = [(i.k, i.measure, i.smaller.relational_weight, i.larger.relational_weight)
             for i in lambda_inversions(SMALL)]
    assert found == [(2, "NCP_X", 0.5, 1), (3, "NCP_X", 0, 0.5)]
    # The expected trade (λ up: NCP_A down, NCP_X up) is no inversion; neither is a difference the pages' three
    # decimals cannot show, nor two runs of different k, nor GDF.
    assert lambda_inversions([run(2, 0, 0.5, 0.90), run(2, 1, 0.3, 0.95)]) == []
    assert lambda_inversions([run(2, 0, 0.5, 0.9504), run(2, 1, 0.3, 0.9500)]) == []
    assert lambda_inversions([run(2, 0, 0.5, 0.99), run(3, 1, 0.3, 0.90)]) == []
    assert lambda_inversions([run(2, None, 0.2, 0.99, strategy="gdf"), run(2, 1, 0.3, 0.90)]) == []
    # Columns: λ = 0 keeping more of them than λ = 1.
    (inverted,) = lambda_inversions([run(5, 0, 0.20, 0.90), run(5, 1, 0.30, 0.95)])
    assert inverted.measure == "NCP_A" and "λ = 0 lost less of the columns (NCP_A 0.200) than λ = 1 (0.300)" in (
        inverted.describe())
    # A re-run of a setting replaces the older one.
    assert lambda_inversions([run(2, 0, 0.5, 0.99), run(2, 1, 0.3, 0.95), run(2, 0, 0.5, 0.90)]) == []


def test_the_note_names_the_pairs_and_says_why_small_data_lets_lambda_misbehave():
    note = inversion_note(SMALL)
    assert note.startswith("λ did not trade as expected here — k = 2: λ = 0.5 lost more text (NCP_X 0.979) than "
                           "λ = 1 (0.975); k = 3: λ = 0 lost more text (NCP_X 0.980) than λ = 0.5 (0.979).")
    assert "With 23 persons, these runs made 5–8 cuts into 6–9 classes" in note
    assert "λ only chooses which attribute each cut is made on" in note and "thousands of persons" in note
    assert inversion_note([run(2, 0, 0.5, 0.90), run(2, 1, 0.3, 0.95)]) is None
    assert inversion_note([]) is None
    many = [run(2, lam / 10, 0.3, 1 - lam / 100) for lam in range(11)]  # NCP_X falls as λ grows: 55 pairs
    assert "; and 51 more pairs." in inversion_note(many)


def test_points_one_per_setting_equal_losses_merged_gdf_apart():
    points = tradeoff_points([run(2, 1, 0.341, 0.893), run(2, 0, 0.341, 0.893), run(2, 0.5, 0.341, 0.893),
                              run(5, 0, 0.6, 0.98), run(2, None, 0.37, 0.63, strategy="gdf"),
                              run(5, None, 0.37, 0.63, strategy="gdf"), run(5, 1, 0.2, 1.0)])
    assert points == [("k=2, λ=0/0.5/1", "k = 2", 0.341, 0.893), ("k=5, λ=0", "k = 5", 0.6, 0.98),
                      ("k=5, λ=1", "k = 5", 0.2, 1.0), ("k=2, GDF", "GDF", 0.37, 0.63),
                      ("k=5, GDF", "GDF", 0.37, 0.63)]


def boxes(svg: str) -> list[tuple[str, float, float, float, float]]:
    """Each label's text and box as the chart estimates it (11 px text, 14 px tall)."""
    from anonymizer.platform.charts import text_width

    found = []
    for x, y, text in re.findall(r'<text class="point-label" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]+)</text>', svg):
        x, y = float(x), float(y)
        found.append((text, x, y - 11, x + text_width(text), y + 3))
    return found


def test_the_scatter_puts_ncp_a_across_ncp_x_up_and_every_label_apart():
    points = tradeoff_points(SMALL)
    svg = scatter_chart(points, title="What each run lost", x_label="NCP_A", y_label="NCP_X",
                        corner_note="lower left loses less")
    assert svg.startswith("<svg") and 'viewBox="0 0 360 ' in svg
    marks = re.findall(r'data-label="([^"]+)" data-x-value="([^"]+)" data-y-value="([^"]+)" data-x="([\d.]+)"',
                       svg)
    assert [m[0] for m in marks] == [p[0] for p in points]
    by_label = {label: (float(a), float(x), float(px)) for label, a, x, px in marks}
    # More NCP_A is further right; more NCP_X further up (a smaller y).
    ys = dict(re.findall(r'<circle class="point" cx="[\d.]+" cy="([\d.]+)"[^>]*data-label="([^"]+)"', svg)[::1])
    ys = {label: float(cy) for cy, label in ys.items()}
    assert by_label["k=2, λ=0"][2] > by_label["k=2, λ=1"][2]
    assert ys["k=3, λ=1"] < ys["k=2, λ=0"]  # 0.992 above 0.926
    labels = boxes(svg)
    assert sorted(text for text, *_ in labels) == sorted(p[0] for p in points)
    for i, (a, *box_a) in enumerate(labels):
        for b, *box_b in labels[i + 1:]:
            apart = box_a[2] <= box_b[0] or box_b[2] <= box_a[0] or box_a[3] <= box_b[1] or box_b[3] <= box_a[1]
            assert apart, (a, b)
        assert 0 <= box_a[0] and box_a[2] <= 360, a
    assert "lower left loses less" in svg and "k = 2" in svg and "k = 3" in svg  # the note and the key
    assert scatter_chart([], title="t", x_label="x", y_label="y") == ""
