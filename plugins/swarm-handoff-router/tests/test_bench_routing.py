"""The routing benchmark reads any number of request files, each its own set of rows."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest


def test_every_requests_file_is_a_row_set_dev_first(bench: ModuleType) -> None:
    names = list(bench.request_files())
    assert names[0] == "dev"
    assert "seen-holdout" in names
    assert all((bench.ROUTING / f"requests-{n}.yaml").exists() for n in names)


def test_files_given_are_named_by_their_stem(bench: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "requests-holdout2.yaml"
    path.write_text("- q: shrink these photos\n  skills: [image-resizer]\n", encoding="utf-8")
    assert bench.request_files([path]) == {"holdout2": path}
    assert bench.load_requests(path) == [{"q": "shrink these photos", "skills": ["image-resizer"]}]


def test_a_malformed_entry_is_reported_and_left_out(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "requests-x.yaml"
    path.write_text("- q: 3\n- q: fine\n  skills: [a]\n- skills: []\n", encoding="utf-8")
    assert [r["q"] for r in bench.load_requests(path)] == ["fine"]
    out = capsys.readouterr().out
    assert "entry 1" in out
    assert "entry 3" in out


def test_a_request_no_skill_fits_is_loaded_and_left_out_of_top_k(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 28: `skills: []` marks a request that no candidate can take (abstention), not a malformed entry.
    path = tmp_path / "requests-x.yaml"
    path.write_text(
        "- q: shrink these photos\n  skills: [image-resizer]\n"
        "- q: publish my typescript library to the js registry\n  skills: []\n"
        '- {q: "renew the lease on our office", skills: []}\n',
        encoding="utf-8",
    )
    loaded = bench.load_requests(path)
    assert "left out" not in capsys.readouterr().out
    assert [r["skills"] for r in loaded] == [["image-resizer"], [], []]
    assert loaded[1]["q"] == "publish my typescript library to the js registry"
    records = [SimpleNamespace(name=n) for n in ("chart-builder", "image-resizer", "regex-helper")]

    def scorer(text: str) -> list[float]:
        return [0.0, 1.0, 0.5] if "photos" in text else [1.0, 0.0, 0.0]

    result = bench.evaluate(records, loaded, scorer)
    assert result["requests"] == 1
    assert (result["top1"], result["top3"], result["mrr"]) == (1.0, 1.0, 1.0)
    assert result["misses"] == []


@pytest.mark.parametrize(
    ("script", "argv"),
    [("bench_router_speed", ["--sizes", "2000", "--real", "--rounds", "1"]), ("bench_mcp_route", ["--skills", "2000"])],
)
def test_a_router_bench_without_the_router_installed_says_so_and_exits_0(
    script: str,
    argv: list[str],
    bench_script: Callable[[str], ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if script == "bench_mcp_route":
        pytest.importorskip("swarm_handoff_mcp", reason="bench_mcp_route needs swarm-handoff-mcp installed")
    module = bench_script(script)
    real = importlib.metadata.distribution

    def without_router(name: str) -> importlib.metadata.Distribution:
        if name == "swarm-handoff-router":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "distribution", without_router)
    module.main(argv)  # returns (exit status 0) before making any tree or running any command
    out = capsys.readouterr().out
    assert f"{script}: skipped: the router (swarm-handoff-router) is not installed" in out


@pytest.mark.parametrize(
    "text",
    ['["not", "digests"]', '{"dev:1": "ab', '{"dev:1": 3}', "\udcff"],
    ids=["a list", "cut short", "a number for a digest", "not UTF-8"],
)
def test_a_rankings_file_that_is_not_a_record_is_refused_naming_it(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    recorded = tmp_path / "rankings.json"
    recorded.write_bytes(text.encode("utf-8", "surrogateescape"))
    monkeypatch.setattr(bench, "digests", lambda records, files: {"dev:1": "00"})
    with pytest.raises(SystemExit) as stopped:
        bench.check_rankings([], {}, recorded)
    assert str(recorded) in str(stopped.value)
    assert "new file name" in str(stopped.value)


def test_rankings_are_recorded_once_then_compared(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = tmp_path / "rankings.json"
    monkeypatch.setattr(bench, "digests", lambda records, files: {"dev:1": "00", "dev:2": "11"})
    assert bench.check_rankings([], {}, recorded) == 0
    first = recorded.read_bytes()
    assert bench.check_rankings([], {}, recorded) == 0
    monkeypatch.setattr(bench, "digests", lambda records, files: {"dev:1": "00", "dev:2": "22"})
    assert bench.check_rankings([], {}, recorded) == 1
    assert recorded.read_bytes() == first  # a comparison never rewrites the record
