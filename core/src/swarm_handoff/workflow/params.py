"""Parameters: read `Arg` metadata from handler signatures, parse `k=v`, check values.

Values reach a workflow as text (`--param mode=quick`, `--state iteration=2`), so this module is
where text becomes typed values and where a value outside its declared domain is refused with a
message naming the allowed values.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff.workflow import types as vocabulary
from swarm_handoff.workflow.types import MISSING, Arg, Handler

KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*\Z")
_SCALARS = (bool, int, float, str)
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@attrs.frozen
class Param:
    """One declared parameter: its name, its Python type and its `Arg` metadata."""

    name: str
    type: type
    arg: Arg

    def coerce(self, raw: Any) -> Any:
        """Turn text (or an already typed value) into this parameter's type, or raise ValueError."""
        if not isinstance(raw, str) or self.type is str:
            value = raw
        elif self.type is bool:
            lowered = raw.strip().lower()
            if lowered not in _TRUE | _FALSE:
                raise ValueError(f"{self.name} takes true or false, not {raw!r}")
            value = lowered in _TRUE
        else:
            try:
                value = self.type(raw)
            except ValueError:
                raise ValueError(f"{self.name} takes a {self.type.__name__}, not {raw!r}") from None
        problem = self.check(value)
        if problem:
            raise ValueError(problem)
        return value

    def check(self, value: Any) -> str | None:
        """Return why `value` is outside the parameter's domain, or None when it fits."""
        arg = self.arg
        if arg.choices is not None and value not in arg.choices:
            return f"{self.name} must be one of {', '.join(map(str, arg.choices))}, not {value!r}"
        if arg.min is not None and value < arg.min:
            return f"{self.name} must be at least {arg.min}, not {value!r}"
        if arg.max is not None and value > arg.max:
            return f"{self.name} must be at most {arg.max}, not {value!r}"
        return None

    def domain_text(self) -> str:
        """Describe the allowed values in a few words, for errors and `workflow show`."""
        arg = self.arg
        if arg.choices is not None:
            return "one of " + ", ".join(map(str, arg.choices))
        if arg.min is not None or arg.max is not None:
            low = "" if arg.min is None else str(arg.min)
            high = "" if arg.max is None else str(arg.max)
            return f"{self.type.__name__} in [{low}..{high}]"
        return f"any {self.type.__name__}"

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form used by `workflow show`."""
        arg = self.arg
        return {
            "name": self.name,
            "type": self.type.__name__,
            "description": arg.description,
            "default": None if arg.default is MISSING else arg.default,
            "required": not arg.has_default,
            "reported": arg.reported,
            "domain": self.domain_text(),
        }


def extract_params(handler: Handler) -> tuple[dict[str, Param], list[str]]:
    """Read every parameter after the context from `handler`'s signature; return (params, problems).

    A parameter needs `Annotated[T, Arg(...)]` or a plain default; T must be bool, int, float or
    str, because values arrive from the command line as text.
    """
    # Callable objects (Dispatch included) are read through their bound __call__, whose
    # annotations typing can resolve; plain functions and methods are read directly.
    candidate: Any = handler  # typed as callable, but packs can pass anything at run time
    if not callable(candidate):
        return {}, [f"handler {handler!r} is not callable"]
    plain = inspect.isfunction(candidate) or inspect.ismethod(candidate)
    target: Any = candidate if plain else candidate.__call__
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError) as exc:
        return {}, [f"cannot read the handler's signature: {exc}"]
    try:
        hints = _type_hints(target)
    except Exception as exc:  # unresolvable string annotations: report, never crash the loader
        return {}, [
            f"cannot resolve the handler's annotations ({type(exc).__name__}: {exc}); "
            "define the handler, and the names its annotations use, at module level"
        ]
    positional = [p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not positional:
        return {}, ["the handler must take the step context as its first argument"]
    params: dict[str, Param] = {}
    problems: list[str] = []
    for parameter in list(signature.parameters.values())[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
            problems.append(f"handler parameter {parameter.name!r} must be an ordinary keyword parameter")
            continue
        param, problem = _param_from(parameter, hints.get(parameter.name, parameter.annotation))
        if problem:
            problems.append(problem)
        elif param is not None:
            params[param.name] = param
    return params, problems


def _type_hints(target: Any) -> dict[str, Any]:
    """Resolve annotations, tolerating handlers defined inside functions (tests, factories)."""
    # With postponed evaluation a nested handler's annotations only see module globals, so the
    # workflow vocabulary (Annotated, Arg, StepContext, ...) is offered as a fallback namespace.
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError:
        fallback = {"Annotated": typing.Annotated, "Any": Any, **vars(vocabulary)}
        return typing.get_type_hints(target, localns=fallback, include_extras=True)


def _param_from(parameter: inspect.Parameter, hint: Any) -> tuple[Param | None, str | None]:
    base, arg = hint, None
    if typing.get_origin(hint) is typing.Annotated:
        base, *extras = typing.get_args(hint)
        arg = next((e for e in extras if isinstance(e, Arg)), None)
    if arg is None:
        if parameter.default is inspect.Parameter.empty:
            return None, f"handler parameter {parameter.name!r} has neither Annotated[..., Arg(...)] nor a default"
        arg = Arg(default=parameter.default)
    elif arg.default is MISSING and parameter.default is not inspect.Parameter.empty:
        arg = attrs.evolve(arg, default=parameter.default)
    if base is inspect.Parameter.empty:
        base = type(arg.default) if arg.default is not MISSING else str
    if base not in _SCALARS:
        return None, f"handler parameter {parameter.name!r} must be bool, int, float or str, not {base!r}"
    param = Param(parameter.name, base, arg)
    if arg.min is not None and arg.max is not None and arg.min > arg.max:
        return None, f"parameter {parameter.name!r} has min {arg.min} above max {arg.max}"
    if arg.default is not MISSING:
        problem = param.check(arg.default)
        if problem:
            return None, f"default of parameter {parameter.name!r} is outside its domain: {problem}"
    return param, None


def parse_assignment(text: str, option: str = "--param") -> tuple[str, str]:
    """Split `key=value`, refusing text without `=` or with a key that is not a simple name."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not KEY_RE.match(key):
        raise ValueError(f"{option} takes key=value with a simple key (letters, digits, _ or -), got {text!r}")
    return key, value


def coerce_state(raw: str) -> Any:
    """Read a carried state value: booleans and numbers come back typed, anything else stays text."""
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    if re.fullmatch(r"-?\d+\.\d+", raw):
        return float(raw)
    return raw


def format_value(value: Any) -> str:
    """Write a value the way `coerce_state` and `Param.coerce` read it back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_state(state: Mapping[str, Any]) -> list[str]:
    """Return why any state entry could not be carried in a command line (bad key, non-scalar)."""
    problems = []
    for key, value in state.items():
        if not KEY_RE.match(str(key)):
            problems.append(f"state key {key!r} is not a simple name")
        elif value is not None and not isinstance(value, _SCALARS):
            problems.append(f"state value {key}={value!r} is not a bool, number or string")
    return problems
