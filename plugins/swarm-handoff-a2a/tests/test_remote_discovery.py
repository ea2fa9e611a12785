"""`discover --remote URL` and `rank --remote URL` through the A2A transport, its card cached as its headers say."""

from __future__ import annotations

from typing import Any

import pytest

from swarm_handoff_a2a.cardcache import fresh_for
from swarm_handoff_a2a.extension import MAX_CARD_LIST, skill_handoff


def test_discover_remote_lists_the_hosts_accepting_skills(hosts, receiver, swarm_cli):
    url = receiver().url
    found = swarm_cli("discover", "--remote", url, "-f", "json")
    assert found.exit_code == 0, found.stderr
    data = found.json()
    assert data["url"] == url
    assert {s["id"] for s in data["skills"]} == {"alpha", "beta", "picky"}
    beta = next(s for s in data["skills"] if s["id"] == "beta")
    assert beta["examples"] == ["Review the market entry plan"]
    assert beta["tags"] == ["research"]
    picky = next(s for s in data["skills"] if s["id"] == "picky")  # what a payload for it is built from
    assert (picky["accepts_from"], picky["requires"], picky["trigger"]) == (["someone-else"], [], "{payload_path}")
    assert picky["schema_version"] == "3.0"
    text = swarm_cli("discover", "--remote", url)
    assert text.stdout.startswith(f"3 skill(s) accept a hand-off at {url}\n")


def test_the_card_is_reused_while_its_max_age_lasts(hosts, receiver, swarm_cli):
    running = receiver()  # max-age 300
    assert swarm_cli("discover", "--remote", running.url).exit_code == 0
    running.stop()
    again = swarm_cli("discover", "--remote", running.url, "-f", "json")
    assert again.exit_code == 0, again.stdout
    assert len(again.json()["skills"]) == 3


def test_a_card_without_a_max_age_is_asked_for_again(hosts, receiver, swarm_cli, monkeypatch):
    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    running = receiver(card_max_age=0)
    assert swarm_cli("discover", "--remote", running.url).exit_code == 0
    running.stop()
    again = swarm_cli("discover", "--remote", running.url, "-f", "json")
    assert again.exit_code == 1
    assert again.json()["error"]["code"] == "A2A_UNREACHABLE"


def test_a_stale_card_is_revalidated_with_its_etag(hosts, receiver, monkeypatch):
    import httpx

    from swarm_handoff_a2a.cardcache import cached_card

    url = receiver(card_max_age=0).url
    first = cached_card(url)
    seen: list[Any] = []
    real_send = httpx.Client.send

    def spy(self: httpx.Client, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        response = real_send(self, request, **kwargs)
        seen.append((request.headers.get("if-none-match"), response.status_code))
        return response

    monkeypatch.setattr(httpx.Client, "send", spy)
    second = cached_card(url)
    assert seen == [(first.etag, 304)]
    assert second.skills == first.skills


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("public, max-age=300", 300),
        ("max-age=999999999", 86_400),
        ("no-cache", 0),
        ("private, no-store", None),
        (None, 0),
    ],
)
def test_how_long_a_card_is_kept_follows_its_cache_control(header, seconds):
    assert fresh_for(header) == seconds


def test_rank_remote_ranks_the_hosts_skills_beside_local_ones(hosts, receiver, swarm_cli):
    url = receiver().url
    ranked = swarm_cli("rank", "--synthesis", str(hosts["synthesis"]), "--remote", url, "--top", "10", "-f", "json")
    assert ranked.exit_code == 0, ranked.stderr
    entries = ranked.json()["workflows"]
    remote = [e for e in entries if e.get("remote") == url]
    local = [e for e in entries if "remote" not in e]
    assert {e["skill"] for e in remote} == {"alpha", "beta", "picky"}
    assert {e["skill"] for e in local} == {"alpha", "beta", "picky"}  # the two hosts share a skills folder here


def test_a_cards_hand_off_fields_are_read_bounded_and_a_bad_one_is_left_to_its_default():
    params = {
        "skills": {
            "ok": {"trigger": "{payload_path}", "accepts_from": ["alpha"], "requires": ["context.known_gaps"]},
            "odd": {
                "trigger": "x\u001b[2J",  # a control character: not shown to anyone
                "accepts_from": ["a"] * (MAX_CARD_LIST + 1),  # too many
                "requires": ["fine", 3],  # not all text
                "optional_consumes": "context.focus_areas",  # not a list
                "schema_version": "9" * 600,  # too long
            },
        }
    }
    assert skill_handoff(params, "ok") == {
        "trigger": "{payload_path}",
        "accepts_from": ["alpha"],
        "requires": ["context.known_gaps"],
    }
    assert skill_handoff(params, "odd") == {}
    assert skill_handoff(params, "missing") == skill_handoff({"skills": []}, "ok") == {}


@pytest.mark.parametrize("loose", ["a2a-cards", "swarm-handoff"])
def test_a_card_cache_others_may_write_is_not_used(hosts, receiver, swarm_cli, monkeypatch, loose):
    """Whoever can write the cache folder could forge any host's card: a folder group or others may write is skipped."""
    import hashlib
    import json
    import os
    import time

    from swarm_handoff_a2a.cardcache import folder

    url = receiver().url
    assert swarm_cli("discover", "--remote", url).exit_code == 0
    cards = folder()
    assert cards is not None
    entry = cards / (hashlib.sha256(url.encode()).hexdigest() + ".json")
    forged = json.loads(entry.read_text(encoding="utf-8"))
    forged["fresh_until"] = time.time() + 86_400
    forged["card"]["skills"] = [{**forged["card"]["skills"][0], "id": "forged"}]
    entry.write_text(json.dumps(forged), encoding="utf-8")
    (cards if loose == "a2a-cards" else cards.parent).chmod(0o777)
    try:
        found = swarm_cli("discover", "--remote", url, "-f", "json")
        assert found.exit_code == 0, found.stdout
        assert "forged" not in {s["id"] for s in found.json()["skills"]}
        loosened = cards if loose == "a2a-cards" else cards.parent  # the core's check: one warning with the fix
        assert f"warning: cache folder {loosened} may be written by group or others" in found.stderr
        assert f"chmod 700 {loosened}" in found.stderr
    finally:
        (cards if loose == "a2a-cards" else cards.parent).chmod(0o700)
    assert os.stat(cards).st_mode & 0o777 == 0o700


def test_a_cached_card_filed_under_another_url_is_not_used(hosts, receiver, swarm_cli, monkeypatch):
    import hashlib
    import json
    import shutil

    from swarm_handoff_a2a.cardcache import folder

    monkeypatch.setenv("SWARM_HANDOFF_A2A_ATTEMPTS", "1")
    url = receiver().url
    other = "http://127.0.0.1:9/"
    assert swarm_cli("discover", "--remote", url).exit_code == 0
    cards = folder()
    assert cards is not None
    name = {u: cards / (hashlib.sha256(u.encode()).hexdigest() + ".json") for u in (url, other)}
    shutil.copyfile(name[url], name[other])  # another host's card, fresh, under this URL's name
    assert json.loads(name[other].read_text(encoding="utf-8"))["card"]["url"] == url
    found = swarm_cli("discover", "--remote", other, "-f", "json")
    assert found.exit_code == 1  # asked the host (nobody there), not answered from the misfiled card


@pytest.mark.parametrize("damage", ["deep", "fresh_until", "card_field"])
def test_a_damaged_cache_file_is_read_again_from_the_host_not_a_traceback(hosts, receiver, damage):
    """A cached card nested past Python's stack, a `fresh_until` that is no number, a field no card has: asked again."""
    import hashlib
    import json

    from swarm_handoff_a2a.cardcache import cached_card, folder

    url = receiver().url
    first = cached_card(url)
    cards = folder()
    assert cards is not None
    path = cards / (hashlib.sha256(url.encode()).hexdigest() + ".json")
    entry = json.loads(path.read_text(encoding="utf-8"))
    if damage == "deep":
        entry["document"]["extra"] = "@"
        text = json.dumps(entry).replace('"@"', "[" * 100_000 + "]" * 100_000)
    elif damage == "fresh_until":
        entry["fresh_until"] = [1]
        text = json.dumps(entry)
    else:
        entry["card"]["no_such_field"] = 1
        text = json.dumps(entry)
    path.write_text(text, encoding="utf-8")
    assert cached_card(url).skills == first.skills
