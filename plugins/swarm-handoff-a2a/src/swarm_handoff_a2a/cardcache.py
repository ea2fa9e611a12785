"""A remote host's agent card, kept as its caching headers say (`discover --remote`, `rank --remote`, `handoff --to`).

The card is read from `/.well-known/agent-card.json` and kept in
`$XDG_CACHE_HOME/swarm-handoff/a2a-cards/` (else `~/.cache/...`; reached through the core's
`subfolder`, so made 0700 and not used, with one warning, when it or `swarm-handoff` is a link,
another user's, or writable by group or others), one file per URL named
by its SHA-256 and holding that URL (a card filed under another URL's name is not used).
`Cache-Control: max-age=N` keeps it fresh for N seconds (at most a day); `no-cache`, or no
`max-age`, keeps it but revalidates it on every use with its `ETag` (`If-None-Match`; a 304 costs no
card); `no-store` keeps nothing. A card larger than 1 MiB, slower than a minute to arrive or nested
too deeply is refused (`bounded.CardBody`), and a cached file that cannot be read or parsed is read
again from the host. `SWARM_HANDOFF_NO_CACHE=1` turns the cache off, as for the core's caches. `a2a
skills URL` always asks the host (it shows the headers). `RemoteSkills` is a card as `discover
--remote` shows it (`skills_of`), kept here beside the card's JSON document (`ReadCard`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import httpx
from a2a.types import AgentCard
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

from swarm_handoff.api import LoadError, atomic_write, read_text, subfolder
from swarm_handoff_a2a.auth import Credentials
from swarm_handoff_a2a.bounded import MAX_CARD_BYTES, CardBody, parse_card, tls_verification
from swarm_handoff_a2a.extension import declares_extension, extension_params, skill_handoff

MAX_AGE = 86_400  # a card is never trusted for longer than a day without asking
_MAX_AGE_RE = re.compile(r"(?:^|[,\s])max-age\s*=\s*(\d{1,12})")


def folder() -> Path | None:
    """The cards' cache folder, reached and checked as the core's stores are (whoever may write it could forge a card).

    None when caching is off or the folder is unsafe (then the core's one warning names it and the fix).
    """
    found = subfolder(os.environ, "a2a-cards")
    return Path(found) if found is not None else None


def fresh_for(cache_control: str | None) -> int | None:
    """Seconds a card may be used without asking: None for `no-store`, 0 to revalidate, else its max-age (bounded)."""
    text = (cache_control or "").lower()
    if "no-store" in text:
        return None
    if "no-cache" in text:
        return 0
    found = _MAX_AGE_RE.search(text)
    return min(int(found.group(1)), MAX_AGE) if found else 0


@attrs.frozen(kw_only=True)
class RemoteSkills:
    """A remote host's card as `discover --remote` shows it: its skills and whether it takes our payloads."""

    url: str
    name: str
    skills: tuple[dict[str, Any], ...]
    extension: bool
    cache_control: str | None = None
    etag: str | None = None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)


def skills_of(url: str, card: AgentCard, headers: Mapping[str, str]) -> RemoteSkills:
    """A card as `RemoteSkills`: its skills, whether it declares our extension, its caching headers."""
    params = extension_params(card)
    skills = tuple(
        {
            "id": s.id,
            "name": s.name,
            "description": s.description,
            "tags": list(s.tags),
            "examples": list(s.examples),
            "handoff": skill_handoff(params, s.id),
        }
        for s in card.skills
    )
    return RemoteSkills(
        url=url,
        name=card.name,
        skills=skills,
        extension=declares_extension(card),
        cache_control=headers.get("cache-control"),
        etag=headers.get("etag"),
    )


@attrs.frozen
class ReadCard:
    """A host's card as read once: its skills as `discover --remote` shows them, and its JSON document.

    The document is what `handoff --to` sends with (`bounded.parse_card`), so the card its target
    was checked against is the card it is sent by, and the host is asked once.
    """

    skills: RemoteSkills
    document: dict[str, Any]


def _load(path: Path, url: str) -> dict[str, Any] | None:
    """The cached entry for `url`, or None for a file that is not one (read again from the host, never a traceback)."""
    with contextlib.suppress(LoadError, OSError, ValueError, TypeError, RecursionError):  # not a card; too deep
        entry = json.loads(read_text(path, limit=3 * MAX_CARD_BYTES))
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("card"), dict)
            and isinstance(entry.get("document"), dict)  # a file from before the document was kept is read again
            and isinstance(entry.get("fresh_until"), (int, float))
            and entry["card"].get("url") == url
        ):
            _remote(entry["card"])  # it still has the fields a card has (skills a list), and is this URL's
            return entry
    return None


def _store(path: Path, entry: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        atomic_write(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"), mode=0o600)


def cached_card(url: str, *, credentials: Credentials | None = None, timeout: float = 30.0) -> RemoteSkills:
    """The host's card: from the cache while fresh, revalidated with its ETag, else read again."""
    return read_card(url, credentials=credentials, timeout=timeout).skills


def read_card(url: str, *, credentials: Credentials | None = None, timeout: float = 30.0) -> ReadCard:
    """The host's card and its document: from the cache while fresh, revalidated with its ETag, else read again."""
    place = folder()
    path = place / (hashlib.sha256(url.encode("utf-8")).hexdigest() + ".json") if place else None
    entry = _load(path, url) if path is not None and path.is_file() else None
    now = time.time()
    if entry is not None and float(entry.get("fresh_until", 0)) > now:
        return ReadCard(_remote(entry["card"]), entry["document"])
    headers = dict((credentials or Credentials()).headers())
    if entry is not None and entry["card"].get("etag"):
        headers["If-None-Match"] = str(entry["card"]["etag"])
    headers["Accept-Encoding"] = "identity"  # read raw (`bounded.CardBody`): a compressed card is no card
    with (
        httpx.Client(timeout=timeout, headers=headers, verify=tls_verification(url)) as http,
        http.stream("GET", url.rstrip("/") + AGENT_CARD_WELL_KNOWN_PATH) as response,
    ):
        if response.status_code == 304 and entry is not None:
            card, document = entry["card"], entry["document"]
            card["cache_control"] = response.headers.get("cache-control", card.get("cache_control"))
        else:
            response.raise_for_status()
            body = CardBody(response.headers.get("content-length"))
            for chunk in response.iter_raw():
                body.add(chunk)
            document = body.document()
            card = skills_of(url, parse_card(document), response.headers).to_data()
    seconds = fresh_for(card.get("cache_control"))
    if path is not None:
        if seconds is None:
            with contextlib.suppress(OSError):
                path.unlink()
        else:
            _store(path, {"fresh_until": now + seconds, "card": card, "document": document})
    return ReadCard(_remote(card), document)


def _remote(card: dict[str, Any]) -> RemoteSkills:
    return RemoteSkills(**{**card, "skills": tuple(card["skills"])})
