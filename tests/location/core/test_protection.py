"""The attacker evaluation on the real Tokyo corpus: disjoint parts, and figures that follow from them."""

from __future__ import annotations

from django.core.management import call_command

from anonymizer.location.defaults import TOKYO
from anonymizer.location.protection import evaluate_protection, three_way_split


def test_three_way_split_is_disjoint_and_user_disjoint_when_users_are_known(midwest):
    defender, attacker, test, by_user = three_way_split(midwest.posts)
    assert by_user
    users = [{midwest.posts[i].user for i in part} for part in (defender, attacker, test)]
    assert not (users[0] & users[1]) and not (users[0] & users[2]) and not (users[1] & users[2])
    assert len(defender) + len(attacker) + len(test) == len(midwest.posts)


def test_deidentification_lowers_the_defenders_confidence_and_reports_the_attacker(tokyo):
    result = evaluate_protection(tokyo.posts, grid=TOKYO.grid, tokenizer_settings=TOKYO.tokenizer_settings,
                                 max_test_posts=300)
    defender, attacker, deletions = result["defender"], result["attacker"], result["deletions"]
    assert result["posts"]["test"] == 300
    # The defender's own confidence falls: every changed post was pushed under its threshold.
    assert defender["deidentified"]["mean_top_probability"] < defender["original"]["mean_top_probability"]
    assert 0 < deletions["morphemes_deleted"] < deletions["posts_changed"] <= 1
    assert deletions["posts_not_under_threshold"] <= 3
    for when in ("original", "deidentified"):
        assert attacker[when]["posts"] == 300 and 0 <= attacker[when]["accuracy"] <= 1


def test_the_command_prints_the_table(capsys, settings):
    call_command("evaluate_location_protection", "--spec", "tokyo-ja", "--max-posts", "100")
    out = capsys.readouterr().out
    assert "| attacker, deidentified | 100 |" in out and "morphemes deleted" in out
