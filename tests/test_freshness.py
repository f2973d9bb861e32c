"""`make freshness`: the parsing and the report, offline, on a tiny tree and a fixture package index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

from freshness import (
    LIBRARIES,
    NOT_ON_THE_INDEX,
    FreshnessError,
    citing_entries,
    kept_on_purpose,
    key_release,
    library_of,
    library_rows,
    main,
    parse_newest,
    recording_claims,
    reference_claims,
    report,
)

REPO = Path(__file__).resolve().parent.parent

BIB = """
@misc{vllm-0.33-scheduler,
  title = {vLLM: config/scheduler.py},
  url = {https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/config/scheduler.py},
  note = {Release 0.33.0: max_num_batched_tokens 2048},
}
@misc{vllm-0.11-cache-config,
  title = {vLLM: config/cache.py},
  url = {https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/config/cache.py},
  note = {Release 0.11.0},
}
@misc{hf-transformers-5.25,
  title = {Transformers documentation},
  url = {https://huggingface.co/docs/transformers/v5.25.0/en/index},
}
@misc{lucene-9.12-bm25,
  title = {Lucene BM25Similarity},
  url = {https://lucene.apache.org/core/9_12_0/core/index.html},
}
@article{vaswani2017attention,
  title = {Attention is all you need},
  author = {Vaswani, Ashish},
  year = {2017},
}
"""

PAGE = """# Serving

Some prose that cites {cite:p}`vllm-0.11-cache-config`.

::::{glossary}
Chunked prefill
Chunked prompt processing
  A definition, {cite:p}`vllm-0.33-scheduler`, §1.

  **Sources:** {cite:p}`vllm-0.33-scheduler`; {cite:p}`vaswani2017attention`.

Transformer
  Another, citing {cite:p}`hf-transformers-5.25`.
::::
"""

INDEX = {
    "vllm": '{"name": "vllm", "versions": ["0.34.0", "0.33.0"], "latest": "0.34.0"}',
    "transformers": '{"name": "transformers", "versions": ["5.25.0", "5.24.0"], "latest": "5.25.0"}',
    "torch": '{"name": "torch", "versions": ["2.15.0", "2.13.0"], "latest": "2.15.0"}',
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A repository of one bibliography, one page, one recording and one kept release."""
    (tmp_path / "docs" / "_bib").mkdir(parents=True)
    (tmp_path / "docs" / "_data").mkdir()
    (tmp_path / "tests" / "data").mkdir(parents=True)
    (tmp_path / "docs" / "_bib" / "references.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "docs" / "14-serving.md").write_text(PAGE, encoding="utf-8")
    recording = {"environment": {"torch": "2.13.0+cpu", "transformers": "5.25.0"}, "rows": [{"torch": "2.13.0+cpu"}]}
    (tmp_path / "tests" / "data" / "peaks.json").write_text(json.dumps(recording), encoding="utf-8")
    (tmp_path / "docs" / "_data" / "freshness-kept.tsv").write_text(
        "source\treason\nvllm-0.11-cache-config\tthe 0.11 history the entry tells\n", encoding="utf-8"
    )
    return tmp_path


def test_a_key_names_its_release_made_precise_by_its_note() -> None:
    assert key_release("vllm-0.33-scheduler", "Release 0.33.0: ...") == ("vllm", Version("0.33.0"))
    assert key_release("hf-transformers-5.24-dtype", "5.24.0 and 5.240.1 are different") == (
        "hf-transformers",
        Version("5.24.0"),
    )
    assert key_release("unsloth-2026.10", "") == ("unsloth", Version("2026.10"))
    assert key_release("unsloth-blog-llama3.3") is None
    assert key_release("kaplan2020scaling") is None


def test_an_unknown_library_prefix_is_refused_by_name() -> None:
    with pytest.raises(FreshnessError, match=r"'jax' names a release of a library this tool does not know"):
        library_of("jax")


def test_every_versioned_reference_of_the_repository_is_of_a_known_library() -> None:
    """A new versioned key with a prefix nobody mapped fails here, not only when a maintainer runs the report."""
    claims = reference_claims(REPO / "docs" / "_bib" / "references.bib")
    assert {claim.library for claim in claims} <= set(LIBRARIES)
    assert len(claims) > 40


def test_every_kept_release_names_a_reference_or_recording_that_exists() -> None:
    kept = kept_on_purpose(REPO / "docs" / "_data" / "freshness-kept.tsv")
    claims = reference_claims(REPO / "docs" / "_bib" / "references.bib") + recording_claims(REPO / "tests" / "data")
    assert set(kept) <= {claim.source for claim in claims}
    assert all(reason.strip() for reason in kept.values())


def test_the_newest_release_is_read_from_pips_json_and_a_missing_one_is_an_error() -> None:
    assert parse_newest("vllm", "WARNING: something\n" + INDEX["vllm"]) == Version("0.34.0")
    with pytest.raises(FreshnessError, match=r"no release of 'lucene': pip said 'ERROR: No matching distribution"):
        parse_newest("lucene", "ERROR: No matching distribution found for lucene")


def test_recordings_name_the_releases_they_were_made_with_once_per_file(tree: Path) -> None:
    claims = recording_claims(tree / "tests" / "data", tree)
    assert [(c.library, str(c.release), c.source) for c in claims] == [
        ("torch", "2.13.0", "tests/data/peaks.json"),
        ("transformers", "5.25.0", "tests/data/peaks.json"),
    ]


def test_citations_are_attributed_to_the_entry_that_makes_them(tree: Path) -> None:
    assert citing_entries(tree / "docs") == {
        "vllm-0.11-cache-config": ["14-serving (prose)"],
        "vllm-0.33-scheduler": ["14-serving: Chunked prefill"],
        "vaswani2017attention": ["14-serving: Chunked prefill"],
        "hf-transformers-5.25": ["14-serving: Transformer"],
    }


def test_the_report_lists_what_is_behind_with_the_entries_and_the_reasons(tree: Path) -> None:
    claims = reference_claims(tree / "docs" / "_bib" / "references.bib") + recording_claims(
        tree / "tests" / "data", tree
    )
    rows = library_rows(claims, INDEX.__getitem__)
    text = report(rows, citing_entries(tree / "docs"), kept_on_purpose(tree / "docs" / "_data" / "freshness-kept.tsv"))
    assert text.splitlines() == [
        "| library | newest | cited releases | status |",
        "| --- | --- | --- | --- |",
        "| torch | 2.15.0 | 2.13.0 | STALE: 1 of 1 behind |",
        "| transformers | 5.25.0 | 5.25.0 | current |",
        "| vllm | 0.34.0 | 0.11.0, 0.33.0 | STALE: 1 of 2 behind |",
        "",
        "| library | reference or recording | cites | newest | why kept | cited by |",
        "| --- | --- | --- | --- | --- | --- |",
        "| torch | tests/data/peaks.json | 2.13.0 | 2.15.0 | - | recording |",
        "| vllm | vllm-0.11-cache-config | 0.11.0 | 0.34.0 | the 0.11 history the entry tells | 14-serving (prose) |",
        "| vllm | vllm-0.33-scheduler | 0.33.0 | 0.34.0 | - | 14-serving: Chunked prefill |",
        "",
        "3 libraries, 5 versioned references and recordings, 3 behind the newest release, 2 of them without a reason",
    ]


def test_a_library_whose_every_older_release_is_kept_says_so(tree: Path) -> None:
    claims = reference_claims(tree / "docs" / "_bib" / "references.bib")
    rows = library_rows([c for c in claims if c.source == "vllm-0.11-cache-config"], INDEX.__getitem__)
    kept = kept_on_purpose(tree / "docs" / "_data" / "freshness-kept.tsv")
    assert report(rows, {}, kept).splitlines()[2] == "| vllm | 0.34.0 | 0.11.0 | kept: 1 of 1 older on purpose |"


def test_a_versioned_work_that_is_no_python_package_is_not_looked_up(tree: Path) -> None:
    assert "lucene" in NOT_ON_THE_INDEX
    sources = {claim.source for claim in reference_claims(tree / "docs" / "_bib" / "references.bib")}
    assert "lucene-9.12-bm25" not in sources


def test_main_reports_an_index_that_does_not_answer_as_one_line(tree: Path, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("freshness.ask_pip", lambda library: "ERROR: Could not fetch URL: connection refused")
    assert main(["--repo", str(tree)]) == 2
    assert capsys.readouterr().err.startswith("freshness: the package index gave no release of 'torch': pip said")
