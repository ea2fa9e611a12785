"""Write YAML that every reader reads back the same, YAML 1.1 readers (PyYAML) included.

ruamel.yaml writes a string plain whenever YAML 1.2 reads it back as that string, but most tools
agents use read YAML 1.1, where plain `yes`, `no`, `on`, `1:20`, `0755` or `2026-01-01` are a
boolean, a sexagesimal or octal number or a date. The representers here quote every string that
the YAML 1.1 or the YAML 1.2 resolver would turn into something else, write strings holding
characters some readers fold (NEL, line and paragraph separators, BOM, controls) double-quoted with
escapes, and write floats in a form both read as floats (`1.0e+16`, not `1e+16`). The YAML 1.1
patterns are PyYAML's implicit resolvers (plus `y`/`n`, which the 1.1 spec lists); PyYAML is not
needed at run time.
"""

from __future__ import annotations

import math
import re
from typing import Any

from swarm_handoff.termsafe import escape_undecodable

# YAML 1.1 implicit resolvers (PyYAML's, with the spec's y/n booleans added).
_YAML11 = re.compile(
    r"""^(?:
        y|Y|n|N|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
      | ~|null|Null|NULL|
      | [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
      | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
      | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
      | [-+]?\.(?:inf|Inf|INF)
      | \.(?:nan|NaN|NAN)
      | [-+]?0b[0-1_]+
      | [-+]?0[0-7_]+
      | [-+]?(?:0|[1-9][0-9_]*)
      | [-+]?0x[0-9a-fA-F_]+
      | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
      | <<
      | =
      | !|&|\*
      | [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
      | [0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
        (?:[Tt]|[\ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
        (?:[\ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
    )$""",
    re.X,
)
# YAML 1.2 core schema (and ruamel's 1.2 extras: 0o octal, underscores, timestamps are above).
_YAML12 = re.compile(
    r"""^(?:
        null|Null|NULL|~|true|True|TRUE|false|False|FALSE
      | [-+]?[0-9_]+
      | 0o[0-7_]+ | 0x[0-9a-fA-F_]+ | 0b[01_]+
      | [-+]?(?:\.[0-9_]+|[0-9_]+(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?
      | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
    )$""",
    re.X,
)
# Characters some reader folds, drops or refuses in plain or single-quoted scalars.
_ESCAPE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def resolves_to_non_text(text: str) -> bool:
    """True when a YAML 1.1 or 1.2 reader turns the plain scalar `text` into something else than a string."""
    return bool(_YAML11.match(text) or _YAML12.match(text))


def needs_quotes(text: str) -> bool:
    """True when a plain `text` would not read back as this string under YAML 1.1 or 1.2."""
    return resolves_to_non_text(text) or text != text.strip()


def float_text(value: float) -> str:
    """A float as YAML 1.1 and 1.2 both read it: `.inf`, `.nan`, and a dot before any exponent."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)  # PyYAML reads 1e+16 as a string, 1.0e+16 as a float
    return text


def _represent_str(representer: Any, data: str) -> Any:
    tag = "tag:yaml.org,2002:str"
    data = escape_undecodable(data)  # a lone surrogate cannot be written as UTF-8, even escaped: `\xff` text
    if _ESCAPE.search(data):
        return representer.represent_scalar(tag, data, style='"')
    if needs_quotes(data):
        return representer.represent_scalar(tag, data, style="'")
    return representer.represent_scalar(tag, data)


def _represent_float(representer: Any, data: float) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:float", float_text(data))


_REPRESENTERS: dict[str, Any] = {}


def _representer(typ: str) -> Any:
    """The representer class of `typ` with the portable string and float forms (built once)."""
    if typ not in _REPRESENTERS:
        from ruamel.yaml.representer import RoundTripRepresenter, SafeRepresenter

        base = RoundTripRepresenter if typ == "rt" else SafeRepresenter
        portable: Any = type(f"Portable{base.__name__}", (base,), {})
        portable.add_representer(str, _represent_str)
        portable.add_representer(float, _represent_float)
        _REPRESENTERS[typ] = portable
    return _REPRESENTERS[typ]


def portable_yaml(typ: str = "rt", *, pure: bool = True) -> Any:
    """A ruamel `YAML` whose output every YAML 1.1 and 1.2 reader reads back as the data dumped.

    `pure=False` lets the safe dumper use libyaml's emitter when installed (bulk output such as
    the session file); the representer, which decides the quoting, is the same either way.
    """
    from ruamel.yaml import YAML

    yaml = YAML(typ=typ, pure=pure)
    yaml.Representer = _representer(typ)
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    return yaml
