"""Citation check: only numbers of sources that were in the prompt survive."""

from __future__ import annotations

from chat.citations import check_citations, excerpt
from tests.chat.helpers import hit, prompt_for, result


def _prompt():
    return prompt_for("q", result([hit(1, "a"), hit(2, "b")]))


def test_valid_citations_are_kept_and_unknown_numbers_are_dropped_from_the_text():
    check = check_citations(
        "Redis is standard [1]. Memcached is fast [7]. Failover [2][9].", _prompt()
    )
    assert check.valid == (1, 2)
    assert check.dropped == (7, 9)
    assert check.text == "Redis is standard [1]. Memcached is fast. Failover [2]."
    assert check.to_dict() == {"valid": [1, 2], "dropped": [7, 9]}


def test_comma_lists_are_checked_number_by_number():
    check = check_citations("Both apply [1, 3, 2].", _prompt())
    assert check.valid == (1, 2)
    assert check.dropped == (3,)
    assert check.text == "Both apply [1][2]."


def test_years_in_brackets_are_not_citations():
    check = check_citations("Decided in [2024] by the team [1].", _prompt())
    assert check.valid == (1,)
    assert "[2024]" in check.text


def test_an_answer_without_citations_has_no_valid_ones():
    assert check_citations("No citations here.", _prompt()).valid == ()


def test_excerpt_is_one_line_and_bounded():
    text = "word " * 200
    short = excerpt("line one\n\nline   two")
    assert short == "line one line two"
    assert len(excerpt(text)) <= 282
    assert excerpt(text).endswith("…")


def test_citations_are_renumbered_1_to_n_in_order_of_first_appearance():
    from chat.citations import renumber

    sources = [hit(n, f"text {n}") for n in range(1, 13)]
    prompt = prompt_for("q", result(sources))
    check = check_citations("Kafka [11]. Redis [7][11]. SQS [3]. Bad [40].", prompt)
    text, shown = renumber(check)
    assert text == "Kafka [1]. Redis [2][1]. SQS [3]. Bad."
    assert shown == {11: 1, 7: 2, 3: 3}


def test_sources_a_reader_cannot_tell_apart_share_one_number():
    """Two chunks of one section show the same chip: they get one number, one chip."""
    from chat.citations import places, renumber

    sources = [
        hit(1, "a", document_id=5, heading_path="Runbook > 3. Unplanned failover"),
        hit(2, "b", document_id=5, heading_path="Runbook > 1. Assess"),
        hit(3, "c", document_id=5, heading_path="Runbook > 3. Unplanned failover"),
        hit(4, "d", document_id=6, heading_path="Runbook > 3. Unplanned failover"),
    ]
    prompt = prompt_for("q", result(sources))
    check = check_citations("Confirm [1]. Re-add [3]. Assess [2]. Both [1][3]. Other [4].", prompt)
    text, shown = renumber(check, places(prompt))
    assert text == "Confirm [1]. Re-add [1]. Assess [2]. Both [1]. Other [3]."
    assert shown == {1: 1, 3: 1, 2: 2, 4: 3}
