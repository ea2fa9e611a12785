"""What another host sends, read bounded: its agent card, its answers, and which failures to retry.

A card is another host's say-so: it is asked for uncompressed and read raw, refused past
`MAX_CARD_BYTES`, `CARD_READ_S` or `MAX_CARD_SKILLS` and when nested deeper than the readers go
(`CardBody`, `parse_card`), never read whole first. Every answer while sending goes through
`BoundedTransport`, cut past `MAX_REPLY_BYTES` or `REPLY_READ_S`. A plain-http URL loads no
certificate bundle (`tls_verification`). `retryable` says which failures are the connection's.
The sender (`sender.py`) and the card cache (`cardcache.py`) both read hosts through this module.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httpx
from a2a.client.card_resolver import parse_agent_card
from a2a.types import AgentCard
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from google.protobuf.json_format import ParseError

from swarm_handoff.api import SwarmError

A2A_UNREACHABLE = "A2A_UNREACHABLE"  # every attempt failed to connect, up to the bound
A2A_REMOTE_ERROR = "A2A_REMOTE_ERROR"  # the host answered with an error that is not a task
RETRYABLE_STATUS = {429, 502, 503, 504}  # answers that mean "not now": retried like a failed connection
MAX_CARD_BYTES = 1024 * 1024  # a card larger than this is refused while it arrives, before it is parsed
MAX_CARD_SKILLS = 1000  # a card listing more skills than this is refused (each is a ranking candidate)
CARD_READ_S = 60.0  # a card that takes longer to arrive (a host dribbling bytes) is refused
MAX_REPLY_BYTES = 8 * 1024 * 1024  # any answer of a host while sending (a task is a few KiB): cut past this
REPLY_READ_S = 120.0  # ... or once it has taken this long to arrive (a host dribbling bytes)


def tls_verification(url: str) -> ssl.SSLContext | bool:
    """httpx's `verify` for a client of `url`: the system's CA bundle for https; for plain http, trust in nothing.

    httpx loads the bundle for every client, TLS or not: about 100 ms of each send on loopback. A
    plain-http host needs none, and a context that trusts no authority makes a redirect to https
    fail closed rather than go unverified.
    """
    if urlsplit(url).scheme.lower() != "http":
        return True
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, and trusts no authority: no bundle is read


def retryable(exc: BaseException) -> bool:
    """Whether a failure is the connection's (worth retrying), not an answer."""
    seen: BaseException | None = exc
    for _ in range(6):
        if seen is None:
            return False
        if isinstance(seen, (httpx.TransportError, ConnectionError, asyncio.TimeoutError)):
            return True
        if isinstance(seen, httpx.HTTPStatusError) and seen.response.status_code in RETRYABLE_STATUS:
            return True
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    return any(f" {code}" in text or f"({code}" in text for code in ("429", "502", "503", "504"))


class CardRefused(ValueError):
    """A card too large, too slow to arrive or too deep to read: refused, never parsed whole."""


class CardBody:
    """A card's bytes as they arrive, refused past `MAX_CARD_BYTES`, `CARD_READ_S` or `MAX_CARD_SKILLS` (bounded)."""

    def __init__(self, declared: str | None) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.until = time.monotonic() + CARD_READ_S
        if declared and declared.isdigit() and int(declared) > MAX_CARD_BYTES:
            raise CardRefused(f"the agent card is {declared} bytes, more than {MAX_CARD_BYTES}")

    def add(self, chunk: bytes) -> None:
        """Take one chunk; refuse the card once it is too large or has taken too long."""
        self.size += len(chunk)
        if self.size > MAX_CARD_BYTES:
            raise CardRefused(f"the agent card is more than {MAX_CARD_BYTES} bytes")
        if time.monotonic() > self.until:
            raise CardRefused(f"the agent card took more than {CARD_READ_S:g} s to arrive")
        self.chunks.append(chunk)

    def document(self) -> dict[str, Any]:
        """The card's JSON document (what the card cache keeps); not JSON, or nested too deep, is refused."""
        try:
            document = json.loads(b"".join(self.chunks))
        except (RecursionError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8
            raise CardRefused(f"the agent card cannot be read: {type(exc).__name__}: {str(exc)[:200]}") from None
        if not isinstance(document, dict):
            raise CardRefused(f"the agent card is a JSON {type(document).__name__}, not an object")
        return document

    def card(self) -> AgentCard:
        """The card these bytes hold; one nested deeper than the readers go is refused, not a traceback."""
        return parse_card(self.document())


def parse_card(document: dict[str, Any]) -> AgentCard:
    """A card's JSON document as the SDK's `AgentCard`, read under the same bounds however it was kept."""
    try:
        card = parse_agent_card(document)
    except (RecursionError, ParseError, ValueError) as exc:
        raise CardRefused(f"the agent card cannot be read: {type(exc).__name__}: {str(exc)[:200]}") from None
    if len(card.skills) > MAX_CARD_SKILLS:
        raise CardRefused(f"the agent card lists {len(card.skills)} skills, more than {MAX_CARD_SKILLS} skills")
    return card


class ReplyTooLarge(httpx.DecodingError):
    """A host's answer over MAX_REPLY_BYTES or REPLY_READ_S: cut while it arrives (an answer: never retried)."""


class _BoundedBody(httpx.AsyncByteStream):
    """A response body that stops at MAX_REPLY_BYTES or REPLY_READ_S instead of being read to its end."""

    def __init__(self, inner: httpx.AsyncByteStream, request: httpx.Request) -> None:
        self.inner = inner
        self.request = request
        self.until = time.monotonic() + REPLY_READ_S

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > MAX_REPLY_BYTES:
                raise ReplyTooLarge(f"the host's reply is more than {MAX_REPLY_BYTES} bytes", request=self.request)
            if time.monotonic() > self.until:
                raise ReplyTooLarge(f"the host's reply took more than {REPLY_READ_S:g} s", request=self.request)
            yield chunk

    async def aclose(self) -> None:
        """Close the connection's body."""
        await self.inner.aclose()


class BoundedTransport(httpx.AsyncBaseTransport):
    """httpx's transport with every response body bounded: the SDK's client reads whole replies."""

    def __init__(self, verify: ssl.SSLContext | bool) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=verify)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send through httpx; hand back the response with its body bounded."""
        response = await self.inner.handle_async_request(request)
        body = response.stream
        if not isinstance(body, httpx.AsyncByteStream):  # httpx's async transport always gives one
            raise TypeError(f"an async transport answered with a {type(body).__name__}")
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_BoundedBody(body, request),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self.inner.aclose()


async def read_card(http: httpx.AsyncClient, url: str) -> tuple[AgentCard, httpx.Headers]:
    """The host's agent card and its response headers, read raw and bounded through `http`."""
    # Asked uncompressed and read raw: a compressed card is no card (no decompression bomb to bound).
    where = url.rstrip("/") + AGENT_CARD_WELL_KNOWN_PATH
    async with http.stream("GET", where, headers={"Accept-Encoding": "identity"}) as response:
        response.raise_for_status()
        body = CardBody(response.headers.get("content-length"))
        async for chunk in response.aiter_raw():
            body.add(chunk)
    return body.card(), response.headers


def remote_failure(url: str, exc: BaseException) -> SwarmError:
    """A host that could not be reached (A2A_UNREACHABLE), or that answered without a card (A2A_REMOTE_ERROR)."""
    if isinstance(exc, (httpx.TransportError, OSError)):
        return SwarmError(
            A2A_UNREACHABLE,
            f"cannot reach {url}: {type(exc).__name__}: {exc}"[:500],
            hint="check the URL and that the receiving host is running (swarm-handoff a2a serve)",
        )
    return SwarmError(
        A2A_REMOTE_ERROR,
        f"{url} answered without an agent card: {type(exc).__name__}: {exc}"[:500],
        hint="give the receiving host's base URL (the one `a2a serve` prints), and check the token",
    )
