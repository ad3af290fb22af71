"""bench/reader/time_sample.py, the time-removal reader figure of issue 46: the ledger keeps a drawn post out of every
later draw, identical outputs of different systems are one blind item, the key maps every item back, and the score
counts a hand-made reader's verdicts right (Wilson intervals computed here by the formula, not by the helper)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from tests.helpers import shared_data

REPO = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("time_sample", REPO / "bench" / "reader" / "time_sample.py")
time_sample = importlib.util.module_from_spec(spec)
spec.loader.exec_module(time_sample)

# Ten posts with a time hint and four without, plus what no draw may take: another language, a retweet.
POSTS = (
    [
        {"post": f"t{i}", "text": f"See you at the gym on Monday, number {i}", "dct": "2012-01-0{i}", "lang": "en"}
        for i in range(10)
    ]
    + [{"post": f"p{i}", "text": f"Just a post about cats, number {i}", "lang": "en"} for i in range(4)]
    + [
        {"post": "es", "text": "Nos vemos el lunes", "lang": "es"},
        {"post": "rt", "text": "RT @someone: see you on Monday", "lang": "en"},
    ]
)


def _draw(tmp_path, seed, n, plain, excluded=frozenset()):
    return time_sample.draw(
        "btc",
        seed,
        n,
        plain,
        btc_dir=None,
        out=tmp_path / "out",
        ledger_path=tmp_path / "ledger.json",
        posts=(POSTS, frozenset(excluded)),
    )


def _ids(path: Path) -> list[str]:
    return [row["post"] for row in time_sample._read_jsonl(path)]


def test_a_drawn_post_is_never_drawn_again(tmp_path):
    first = _draw(tmp_path, 1, 4, 2)
    timed, plain = _ids(first / "sample.jsonl"), _ids(first / "plain.jsonl")
    assert len(timed) == 4 and set(timed) <= {f"t{i}" for i in range(10)}
    assert len(plain) == 2 and set(plain) <= {f"p{i}" for i in range(4)}
    ledger = json.loads((tmp_path / "ledger.json").read_text())
    assert ledger["draws"] == [
        {"source": "btc", "seed": 1, "drawn": ledger["draws"][0]["drawn"], "posts": timed, "plain": plain}
    ]
    # The next draw takes the rest of the pool (6 timed, 2 plain), none of the first draw's, and not "t9" excluded.
    second = _draw(tmp_path, 2, 5, 2, excluded={"t9"})
    assert set(_ids(second / "sample.jsonl")) == {f"t{i}" for i in range(9)} - set(timed)
    assert set(_ids(second / "plain.jsonl")) == {f"p{i}" for i in range(4)} - set(plain)
    with pytest.raises(SystemExit, match="left to draw"):  # nothing left: the other language and the retweet never
        _draw(tmp_path, 3, 2, 0)
    with pytest.raises(SystemExit, match="spent once"):
        _draw(tmp_path, 1, 1, 0)
    assert time_sample.ledger_ids(json.loads((tmp_path / "ledger.json").read_text()), "btc") == frozenset(
        timed + plain + _ids(second / "sample.jsonl") + _ids(second / "plain.jsonl")
    )


def test_the_draw_is_the_seeded_sample_of_the_sorted_pool(tmp_path):
    import random

    sample = _draw(tmp_path, 7, 3, 1)
    rng = random.Random(7)
    assert _ids(sample / "sample.jsonl") == rng.sample(sorted(f"t{i}" for i in range(10)), 3)
    assert _ids(sample / "plain.jsonl") == rng.sample(sorted(f"p{i}" for i in range(4)), 1)
    rows = time_sample._read_jsonl(sample / "sample.jsonl")
    assert all(set(row) == {"post", "text", "dct"} for row in rows)


def test_the_midwest_draw_leaves_out_every_earlier_sample_and_the_development_pool():
    shared_data("geo/us_midwest_2017/tweets.csv.gz")
    from tests.temporal.core import test_hand_checked_midwest as midwest

    posts, excluded = time_sample.midwest_posts()
    by_id = {row["post"]: {"id": row["post"], "text": row["text"], "lang": row["lang"]} for row in posts}
    sampled = {j["id"] for sample in midwest.SAMPLES.values() for j in sample.timed + sample.plain}
    assert sampled <= excluded
    assert midwest.read_in_development(by_id, 2300) <= excluded
    assert len(excluded) == len(sampled | midwest.read_in_development(by_id, 2300))


def _system(directory: Path, name: str, outputs: dict[str, str | None], plain: dict[str, str] | None = None):
    rows = [{"post": p, "plain": False, "output": o, "seconds": 0.01} for p, o in outputs.items()]
    rows += [{"post": p, "plain": True, "output": o, "seconds": 0.01} for p, o in (plain or {}).items()]
    time_sample._write_system(directory, name, rows, {"label": name, "commit": "test"})


@pytest.fixture
def sample_dir(tmp_path):
    time_sample._write_jsonl(
        tmp_path / "sample.jsonl",
        [
            {"post": "a", "text": "Gym at 3 PM today"},
            {"post": "b", "text": "See you Monday!"},
            {"post": "c", "text": "Tomorrow is the big day"},
        ],
    )
    time_sample._write_jsonl(tmp_path / "plain.jsonl", [{"post": "x", "text": "cats"}, {"post": "y", "text": "dogs"}])
    _system(
        tmp_path,
        "before",
        {"a": "Gym", "b": "See you!", "c": "A certain time is the big day"},
        {"x": "cats", "y": "dogs"},
    )
    _system(tmp_path, "after", {"a": "Gym", "b": "See you!", "c": None}, {"x": "cats", "y": ""})
    _system(tmp_path, "naive", {"a": "Gym at", "b": "See you!", "c": "is the big day"}, {"x": "cats", "y": "dogs"})
    return tmp_path


def test_identical_outputs_are_one_item_and_the_key_round_trips(sample_dir):
    time_sample.blind(sample_dir, 3)
    items = time_sample._read_jsonl(sample_dir / "blind.jsonl")
    key = json.loads((sample_dir / "key.json").read_text())
    # (a, Gym) before+after, (a, Gym at) naive, (b, See you!) all three, (c, ...) before, (c, ...) naive; c's
    # refused "after" output is no item.
    assert len(items) == 5 and [row["item"] for row in items] == list(range(5))
    assert set(items[0]) == {"item", "original", "output"}
    assert sorted(sorted(entry["systems"]) for entry in key["items"].values()) == [
        ["after", "before"],
        ["after", "before", "naive"],
        ["before"],
        ["naive"],
        ["naive"],
    ]
    texts = {row["post"]: row["text"] for row in time_sample._read_jsonl(sample_dir / "sample.jsonl")}
    given = {
        (name, row["post"]): row["output"]
        for name in ("before", "after", "naive")
        for row in time_sample._read_jsonl(sample_dir / f"{name}.jsonl")
        if not row["plain"]
    }
    for row in items:
        entry = key["items"][str(row["item"])]
        assert row["original"] == texts[entry["post"]]
        assert all(given[(name, entry["post"])] == row["output"] for name in entry["systems"])
    assert {(name, entry["post"]) for entry in key["items"].values() for name in entry["systems"]} == {
        pair for pair, output in given.items() if output is not None
    }
    assert "{{" not in (sample_dir / "brief.md").read_text() and "5 items" in (sample_dir / "brief.md").read_text()


def _wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    centre, half = (k + z * z / 2) / (n + z * z), z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return centre - half, centre + half


def test_the_score_of_two_hand_made_readers(sample_dir, capsys):
    time_sample.blind(sample_dir, 3)
    key = json.loads((sample_dir / "key.json").read_text())
    by_systems = {(*sorted(entry["systems"]), entry["post"]): int(item) for item, entry in key["items"].items()}
    gym, gym_at = by_systems[("after", "before", "a")], by_systems[("naive", "a")]
    see, slot, cut = (
        by_systems[("after", "before", "naive", "b")],
        by_systems[("before", "c")],
        by_systems[("naive", "c")],
    )
    first = {
        gym: (True, True, None),
        gym_at: (True, False, "empty slot"),
        see: (True, True, None),
        slot: (True, False, "odd replacement"),
        cut: (True, False, "meaning damaged"),
    }
    second = {**first, gym: (False, True, "time left"), slot: (True, True, None)}
    paths = []
    for name, verdicts in (("one", first), ("two", second)):
        path = sample_dir / f"{name}.jsonl"
        time_sample._write_jsonl(
            path,
            (
                {"item": item, "correct": c, "natural": n, "category": cat, "reason": "because" if cat else ""}
                for item, (c, n, cat) in sorted(verdicts.items())
            ),
        )
        paths.append(path)
    figures = time_sample.score(sample_dir, paths)
    one, two = figures["per_reader"]["one"], figures["per_reader"]["two"]
    before = one["before"]
    assert (before["n"], before["correct"], before["natural"], before["both"]) == (3, 3, 2, 2)
    assert (one["after"]["n"], one["after"]["both"]) == (2, 2)
    assert (one["naive"]["n"], one["naive"]["natural"], one["naive"]["both"]) == (3, 1, 1)
    assert (two["before"]["correct"], two["before"]["both"], two["after"]["both"], two["naive"]["both"]) == (2, 2, 1, 1)
    assert (figures["pooled"]["before"]["n"], figures["pooled"]["before"]["both"]) == (6, 4)
    # Agreement on the five items: "correct" differs on one (kappa: all-true against 4 of 5 true gives 0), "natural"
    # on one (3 of 5 and 2 of 5 natural: observed 0.8, expected 0.48, kappa 0.615).
    assert figures["agreement"][("one", "two", "correct")] == (4, 5, "0.00")
    assert figures["agreement"][("one", "two", "natural")] == (4, 5, "0.62")
    assert figures["failures"]["naive"] == {"empty slot": 2, "meaning damaged": 2}
    assert figures["plain"] == {"after": (1, 2, 0), "before": (2, 2, 0), "naive": (2, 2, 0)}
    out = capsys.readouterr().out
    low, high = _wilson(2, 3)
    assert (
        f"| before | one | 3/3 = 100.0% [{_wilson(3, 3)[0]:.1%}, 100.0%] | 2/3 = 66.7% [{low:.1%}, {high:.1%}] |" in out
    )
    low, high = _wilson(4, 6)
    assert f"4/6 = 66.7% [{low:.1%}, {high:.1%}]" in out
    assert "| after | 1/2 = 50.0%" in out


def test_a_no_without_a_category_or_an_item_left_out_is_refused(sample_dir):
    time_sample.blind(sample_dir, 3)
    key = json.loads((sample_dir / "key.json").read_text())
    path = sample_dir / "bad.jsonl"
    time_sample._write_jsonl(path, [{"item": 0, "correct": False, "natural": True, "category": None, "reason": ""}])
    with pytest.raises(SystemExit, match="without a reason"):
        time_sample.read_judgments(path, key)
    time_sample._write_jsonl(path, [{"item": 0, "correct": "yes", "natural": "yes"}])
    with pytest.raises(SystemExit, match="no judgment for 4 items"):
        time_sample.read_judgments(path, key)


def test_the_naive_baseline_only_deletes():
    assert time_sample.delete_spans("Gym at 3 PM today!", [(7, 11), (12, 17)]) == "Gym at!"
    assert time_sample.delete_spans("Tomorrow I go (today) home", [(0, 8), (15, 20)]) == "I go () home"
    assert time_sample.delete_spans("from 5pm to 7pm .", [(5, 8), (12, 15)]) == "from to."
    assert time_sample.delete_spans("a  b", []) == "a  b"  # the author's own spacing stays


def test_release_uses_the_products_defaults():
    from anonymizer.location.web.serializers import InspectOptionsSerializer

    options = InspectOptionsSerializer(data={})
    assert options.is_valid(), options.errors
    assert {k: options.validated_data[k] for k in time_sample.PRODUCT_OPTIONS} == time_sample.PRODUCT_OPTIONS


def test_release_and_naive_on_a_real_post(tmp_path):
    time_sample._write_jsonl(
        tmp_path / "sample.jsonl",
        [
            {"post": "1", "text": "Heading to the gym at 3 PM tomorrow with Sam"},
            {"post": "2", "text": "明日の朝9時にジムに行きます"},
        ],
    )
    time_sample.release(tmp_path, "after")
    time_sample.naive(tmp_path)
    after = {row["post"]: row["output"] for row in time_sample._read_jsonl(tmp_path / "after.jsonl")}
    naive = {row["post"]: row["output"] for row in time_sample._read_jsonl(tmp_path / "naive.jsonl")}
    assert after["2"] is None  # the Japanese post refused, as the API does
    assert "gym" in after["1"] and "Sam" in after["1"] and "PM" not in after["1"] and "tomorrow" not in after["1"]
    assert naive["1"] == "Heading to the gym at with Sam"
    meta = json.loads((tmp_path / "after.meta.json").read_text())
    assert (meta["posts"], meta["changed"], meta["refused"]) == (2, 1, 1)
