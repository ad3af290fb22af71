"""The default location models that `make run` trains from the data shipped in data/ (no Django here)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from anonymizer.location.corpus import ColumnMap
from anonymizer.location.tokenize import TokenizerSettings
from anonymizer.platform.grid import Grid
from anonymizer.texts import gettext_noop

# Bumped when how a default model is trained changes beyond its spec (units and the gazetteer scorer: 2), so the
# bootstrap trains it again.
DEFAULTS_REVISION = 2
GAZETTEER = "geo/gazetteer/places.json.gz"


@dataclass(frozen=True)
class ModelSpec:
    """How to train one model from a corpus file: where the file is, which rows, which grid and language."""

    name: str
    title: str
    corpus: str  # path relative to the data directory
    language: str
    grid: Grid
    columns: ColumnMap = field(default_factory=ColumnMap)
    where: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def tokenizer_settings(self) -> TokenizerSettings:
        return TokenizerSettings.current(self.language)

    def fingerprint(self, data_dir: Path) -> str:
        """Changes when the spec or the corpus file changes: the bootstrap retrains only then."""
        described = {**asdict(self), "tokenizer": self.tokenizer_settings.to_dict(), "revision": DEFAULTS_REVISION}
        digest = hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode())
        # The English tokenizer finds place units with the gazetteer: a new gazetteer is a new model.
        for path in (data_dir / self.corpus, data_dir / GAZETTEER):
            if path.exists() or path == data_dir / self.corpus:
                with path.open("rb") as handle:
                    while chunk := handle.read(1 << 20):
                        digest.update(chunk)
        return digest.hexdigest()


# Tokyo: the box the issue names; 20 x 10 as in the paper (rows north to south, about 1.9 x 4.5 km cells).
TOKYO = ModelSpec(
    name="tokyo-ja",
    title=gettext_noop("Tokyo (Japanese)"),  # shown translated: TrainedLocationModel.display_name
    corpus="geo/japan_311/tweets.csv",
    language="ja",
    grid=Grid(35.50, 139.45, 35.85, 139.95, rows=20, cols=10),
    columns=ColumnMap(id="id"),
)
# US Midwest and South: 1 x 2 degree cells (about 110 x 170 km), city-scale for a corpus whose places are
# cities; state-level places are left out, their coordinates are the centre of a whole state.
US_MIDWEST = ModelSpec(
    name="us-midwest-en",
    title=gettext_noop("US Midwest and South (English)"),
    corpus="geo/us_midwest_2017/tweets.csv.gz",
    language="en",
    grid=Grid(29.0, -104.0, 49.0, -84.0, rows=20, cols=10),
    columns=ColumnMap(id="id", user="user", time="created"),
    where={"kind": ("point", "place_city", "place_poi", "place_neighborhood"), "lang": ("en",)},
)
DEFAULT_MODELS = (TOKYO, US_MIDWEST)
