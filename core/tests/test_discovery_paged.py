"""`DiscoveryResult.paged`: one page of a long list, said in the document; a list that fits is left whole."""

from __future__ import annotations

from swarm_handoff.discovery import DiscoveryResult
from swarm_handoff.records import SkillRecord
from swarm_handoff.render import render

RECORDS = tuple(SkillRecord(name=f"s{i}", scope="project", source="test") for i in range(5))


def test_a_list_that_fits_is_the_same_result():
    whole = DiscoveryResult(workflows=RECORDS, scanned=5)
    assert whole.paged(0, 5) is whole
    assert "page" not in whole.paged(0, 100).to_data()


def test_a_page_keeps_its_slice_and_says_where_the_next_starts():
    data = DiscoveryResult(workflows=RECORDS, scanned=5).paged(2, 2).to_data()
    assert [w["skill"] for w in data["workflows"]] == ["s2", "s3"]
    assert data["page"] == {"offset": 2, "limit": 2, "returned": 2, "total": 5, "next_offset": 4}
    assert data["scanned"] == 5


def test_the_last_page_has_no_next_and_a_page_past_the_end_is_not_none_found():
    result = DiscoveryResult(workflows=RECORDS, scanned=5)
    assert result.paged(4, 2).to_data()["page"]["next_offset"] is None
    beyond = result.paged(9, 2)
    assert beyond.message is None
    assert beyond.to_data()["workflows"] == []
    assert "(workflows none of 5)" in render(beyond, "text")


def test_an_empty_list_paged_still_says_none_found():
    empty = DiscoveryResult(workflows=(), scanned=3).paged(0, 10)
    assert empty.message is not None
