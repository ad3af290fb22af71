#!/usr/bin/env bash
# The raw tweets of the Broad Twitter Corpus' sections A and B (Derczynski, Bontcheva and Roberts, COLING 2016;
# CC-BY 4.0: general UK tweets of 2012, like SynTime's) with the corpus' licence and README, into DIR, outside this
# repository: the texts are never committed. bench/reader/time_sample.py draw btc reads them (--btc-dir DIR or
# BTC_DIR=DIR).
#
# Usage: bench/reader/fetch_btc.sh DIR [GIT_MIRROR]
#   With GIT_MIRROR (a bare clone of github.com/GateNLP/broad_twitter_corpus, e.g.
#   /work/.mirror/GateNLP+broad_twitter_corpus/repo) the files come from it; without, they are downloaded from the
#   public repository at the pinned commit below.
set -euo pipefail
COMMIT=0c45ef7b1924a6b8115bceab388781590b1b553a
FILES=(a.no-labels.json b.no-labels.json LICENSE README.md)
dir=${1:?usage: $0 DIR [GIT_MIRROR]}
mirror=${2:-}
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
target=$(realpath -m "$dir")
case "$target/" in
  "$repo"/*) echo "refusing to write the corpus' texts inside the repository ($target)" >&2; exit 1 ;;
esac
mkdir -p "$target"
for name in "${FILES[@]}"; do
  if [ -n "$mirror" ]; then
    git --git-dir="$mirror" show "$COMMIT:$name" > "$target/$name"
  else
    curl -fsSL "https://raw.githubusercontent.com/GateNLP/broad_twitter_corpus/$COMMIT/$name" -o "$target/$name"
  fi
done
echo "Broad Twitter Corpus $COMMIT (CC-BY 4.0, see $target/LICENSE): $(cat "$target"/a.no-labels.json "$target"/b.no-labels.json | wc -l) tweets in $target"
