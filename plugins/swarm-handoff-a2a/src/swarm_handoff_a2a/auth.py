"""Tokens: what a receiving host requires (`Auth`) and what a sender presents (`Credentials`).

A token comes from an environment variable or the first line of a file, never from an argument
(other users of the machine see arguments in `ps`). A token file is read with the core's checked
reader (a regular file, bounded, UTF-8); the receiver's must also be private to its owner. Nothing
here imports the A2A SDK: the commands module resolves tokens before any server or client exists.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import attrs

from swarm_handoff.api import LoadError, SwarmError, UsageError, read_text
from swarm_handoff_a2a.operation_table import AUTH_SCHEMES, TOKEN_ENV  # stated once, where the options show them

A2A_AUTH_SECRET = "A2A_AUTH_SECRET"  # the token's variable or file is missing, empty or unreadable
MAX_TOKEN_FILE_BYTES = 4096


def checked_scheme(scheme: str) -> str:
    """The scheme when it is one of AUTH_SCHEMES, else a usage error naming the choices."""
    if scheme not in AUTH_SCHEMES:
        raise UsageError(
            f"--auth-scheme {scheme!r} is not one of {', '.join(AUTH_SCHEMES)}", hint="--auth-scheme bearer"
        )
    return scheme


def read_token(path: Path, *, private: bool) -> str:
    """The first line of a token file (a bounded regular UTF-8 file; with `private`, unreadable by others)."""

    def owner_only(found: os.stat_result) -> None:  # the mode of the file opened, not of a second look at the name
        if private and found.st_mode & 0o077:
            raise SwarmError(
                A2A_AUTH_SECRET,
                f"the token file {path} can be read by others (mode {found.st_mode & 0o777:o})",
                hint=f"chmod 600 {path}",
            )

    try:
        text = read_text(path, limit=MAX_TOKEN_FILE_BYTES, check=owner_only)
    except (LoadError, OSError) as exc:  # missing, a folder or a device, too large, not UTF-8
        why = exc.problem.message if isinstance(exc, LoadError) else exc.strerror or str(exc)
        raise SwarmError(A2A_AUTH_SECRET, f"cannot read the token file {path}: {why}", hint="check the path") from None
    lines = text.strip().splitlines()
    if not lines or not lines[0].strip():
        raise SwarmError(A2A_AUTH_SECRET, f"the token file {path} is empty", hint="write the token on its first line")
    return lines[0].strip()


@attrs.frozen
class Auth:
    """How clients authenticate: a bearer token or an API key (in `header`); the secret never comes from an argument."""

    scheme: str  # "bearer" or "api-key"
    secret: str = attrs.field(repr=False)
    header: str = "X-API-Key"

    @classmethod
    def from_env(cls, scheme: str, variable: str, *, header: str = "X-API-Key") -> Auth:
        """The secret from environment variable `variable`."""
        value = os.environ.get(variable, "").strip()
        if not value:
            raise SwarmError(
                A2A_AUTH_SECRET,
                f"the environment variable {variable} holds no token",
                hint=f"export {variable} with the token clients must present, or give a token file",
            )
        return cls(checked_scheme(scheme), value, header)

    @classmethod
    def from_file(cls, scheme: str, path: Path, *, header: str = "X-API-Key") -> Auth:
        """The secret from the first line of a file only its owner can read."""
        return cls(checked_scheme(scheme), read_token(path, private=True), header)

    def allows(self, headers: Mapping[str, str]) -> bool:
        """Whether a request's headers (lower-case names) carry the secret, compared in constant time."""
        if self.scheme == "bearer":
            given = headers.get("authorization", "")
            token = given[7:].strip() if given[:7].lower() == "bearer " else ""
        else:
            token = headers.get(self.header.lower(), "").strip()
        import hmac  # only a serving receiver compares; `--help` need not load OpenSSL's hashes

        return bool(token) and hmac.compare_digest(token.encode("utf-8"), self.secret.encode("utf-8"))


@attrs.frozen(kw_only=True)
class Credentials:
    """What the sender presents: a bearer token or an API key, read from an environment variable or a file."""

    scheme: str = "bearer"
    secret: str = attrs.field(repr=False, default="")
    header: str = "X-API-Key"

    @classmethod
    def from_env(cls, variable: str, *, scheme: str = "bearer", header: str = "X-API-Key") -> Credentials:
        """The secret from environment variable `variable` (empty: no credentials)."""
        return cls(scheme=scheme, secret=os.environ.get(variable, "").strip(), header=header)

    @classmethod
    def from_file(cls, path: Path, *, scheme: str = "bearer", header: str = "X-API-Key") -> Credentials:
        """The secret from the first line of a file (an empty file is refused: it would send nothing)."""
        return cls(scheme=scheme, secret=read_token(path, private=False), header=header)

    def headers(self) -> dict[str, str]:
        """The HTTP headers that carry the secret."""
        if not self.secret:
            return {}
        if self.scheme == "bearer":
            return {"Authorization": f"Bearer {self.secret}"}
        return {self.header: self.secret}


def receiver_auth(token_file: Path | None, auth_scheme: str) -> Auth | None:
    """The receiver's scheme: the token file's secret, else the environment variable's, else none (loopback only)."""
    scheme = checked_scheme(auth_scheme)
    if token_file is not None:
        return Auth.from_file(scheme, token_file)
    if os.environ.get(TOKEN_ENV, "").strip():
        return Auth.from_env(scheme, TOKEN_ENV)
    return None


def sender_credentials(token_file: Path | None, auth_scheme: str) -> Credentials:
    """What the sender presents: the token file's secret, else the environment variable's (possibly none)."""
    scheme = checked_scheme(auth_scheme)
    if token_file is None:
        return Credentials.from_env(TOKEN_ENV, scheme=scheme)
    return Credentials.from_file(token_file, scheme=scheme)
