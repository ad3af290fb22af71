"""docs/python.md's examples run as written: each ``python`` block of a section, in order, in one namespace per
section (a block may use what an earlier block of its section defined), with the default models in the cache
(the web tests' own, kakurega_cache) so that no example trains one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "python.md"
_SECTION = re.compile(r"^## (.+)$", re.M)
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def sections() -> dict[str, list[str]]:
    """The page's ``python`` blocks by section title, in order."""
    text = PAGE.read_text(encoding="utf-8")
    heads = list(_SECTION.finditer(text))
    out = {}
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        body = text[head.end(): after.start() if after else len(text)]
        out[head.group(1)] = _BLOCK.findall(body)
    return out


def test_the_page_has_examples() -> None:
    found = {title: len(blocks) for title, blocks in sections().items()}
    assert sum(found.values()) >= 1, found


@pytest.mark.parametrize("title", [title for title, blocks in sections().items() if blocks])
def test_a_sections_examples_run(title: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 kakurega_cache: Path) -> None:
    monkeypatch.chdir(tmp_path)  # an example writes its files where a notebook would: the working directory
    namespace: dict = {"__name__": "__docs__"}
    for number, block in enumerate(sections()[title], 1):
        code = compile(block, f"docs/python.md [{title}, example {number}]", "exec")
        exec(code, namespace)
