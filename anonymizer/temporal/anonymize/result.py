"""The anonymized post and where its pieces come from (:class:`TemporalResult`), and the capitals a cut hands on."""

from __future__ import annotations

from dataclasses import dataclass, field

from anonymizer.temporal.normalize import NormalizedText


@dataclass
class TemporalResult:
    text: str  # the anonymized post, untouched pieces as the author wrote them
    removed: list[str] = field(default_factory=list)  # the pieces cut, in order
    generalized: list[tuple[str, str]] = field(default_factory=list)  # (expression, neutral phrase)
    removed_spans: list[tuple[int, int]] = field(default_factory=list)  # in the original text
    generalized_spans: list[tuple[int, int]] = field(default_factory=list)
    cut_tokens: frozenset[int] = frozenset()  # in the parse of the normalized text
    replaced_tokens: frozenset[int] = frozenset()
    # For every character of ``text``, the offset of the character of the original it comes from; -1 for the
    # characters of a neutral phrase. Empty: ``text`` is the original.
    offsets: list[int] = field(default_factory=list)
    original: str = ""  # the post as written

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.generalized)

    @property
    def inserted_spans(self) -> list[tuple[int, int]]:
        """The spans of ``text`` that hold neutral phrases."""
        spans: list[tuple[int, int]] = []
        for position, offset in enumerate(self.offsets):
            if offset >= 0:
                continue
            if spans and spans[-1][1] == position:
                spans[-1] = (spans[-1][0], position + 1)
            else:
                spans.append((position, position + 1))
        return spans

    def original_span(self, start: int, end: int) -> tuple[int, int] | None:
        """Where the characters ``text[start:end]`` are in the original; None when they all belong to a
        neutral phrase."""
        if not self.offsets:
            return start, end
        inside = [offset for offset in self.offsets[start:end] if offset >= 0]
        return (inside[0], inside[-1] + 1) if inside else None


def recapitalize(norm: NormalizedText, removed: set[int], text: str, offsets: list[int]) -> str:
    """A cut phrase that started a sentence with a capital ("From 3 - 5 October, join us") hands the capital
    to the first word kept after it ("Join us")."""
    chars = list(text)
    where = {offset: position for position, offset in enumerate(offsets) if offset >= 0}
    pieces = norm.pieces
    for index, piece in enumerate(pieces):
        if index not in removed or (index and index - 1 in removed):
            continue
        if not (piece.original[:1].isupper() and starts_sentence(norm.original, piece.start)):
            continue
        following = next((p for i, p in enumerate(pieces[index:], start=index) if i not in removed), None)
        if following is not None and following.original[:1].islower() and following.start in where \
                and not following.original.startswith(("http", "www.")):
            chars[where[following.start]] = following.original[0].upper()
    return "".join(chars)


def ends_sentence(norm: NormalizedText, index: int) -> bool:
    following = norm.pieces[index + 1] if index + 1 < len(norm.pieces) else None
    return following is None or following.original[:1].isupper()


def starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?:;\n\"'(" or before.endswith("...")
