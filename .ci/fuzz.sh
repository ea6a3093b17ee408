#!/usr/bin/env bash
# Short fuzzing pass for CI: each fuzz target runs for FUZZTIME (default 8s),
# one target per `go test -fuzz` invocation (go test fuzzes one target at a
# time). About 2 minutes on 2 cores with a warm build cache. A crasher is
# written to <package>/testdata/fuzz/<Target>/ and fails this script: commit
# that file, it is a regression test from then on. Longer runs and the list
# of targets: docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
FUZZTIME="${FUZZTIME:-8s}"

# package target (every fuzz target of the repository; keep in sync with
# docs/reliability.md — the check below fails on a target missing here).
targets=(
  "./analyze/transcript FuzzRead"
  "./analyze/transcript FuzzParseNotification"
  "./analyze/transcript FuzzFastDecoder"
  "./analyze/transcript FuzzParallelRead"
  "./analyze/transcript FuzzFollow"
  "./analyze FuzzCarries"
  "./internal/jsonscan FuzzStringEnd"
  "./internal/jsonscan FuzzScanner"
  "./analyze/transcript FuzzParseUTC"
  "./analyze/journal FuzzReadAndAttempts"
  "./analyze/journal FuzzDecodeFast"
  "./analyze/interpret FuzzDecodeMark"
  "./analyze/interpret FuzzMarkRoundTrip"
  "./analyze/detect/ship FuzzClassify"
  "./analyze/detect/ship FuzzClassifyNeverPanics"
  "./analyze/detect/ship FuzzQuiet"
  "./analyze/detect/ship FuzzQuietLines"
  "./analyze/detect/ship FuzzOutputOf"
  "./analyze/shell FuzzNestingBound"
  "./rules FuzzParse"
  "./rules FuzzParseBaseline"
  "./analyze/transcript FuzzReadStream"
  "./analyze/jsonl FuzzArrayReader"
  "./analyze/jsonl FuzzSplitter"
  "./internal/freeze FuzzThaw"
)

# Every func FuzzX in the tree must be listed, so a new target is not
# silently left out of CI.
missing=0
while IFS=: read -r file _ decl; do
  name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"$decl")
  pkg="./$(dirname "$file")"
  found=0
  for t in "${targets[@]}"; do [ "$t" = "$pkg $name" ] && found=1; done
  if [ "$found" = 0 ]; then echo "fuzz.sh: $pkg $name is not in the target list"; missing=1; fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | sed 's#^\./##')
[ "$missing" = 0 ] || exit 1

# Arguments, when given, replace the list: each one "package Target" (the
# GOEXPERIMENT=simd pass of .ci/run fuzzes two targets this way, so both
# passes share the retry below).
if [ "$#" -gt 0 ]; then targets=("$@"); fi

# crashers lists the failing inputs go test has written for a target.
crashers() { { ls "$1/testdata/fuzz/$2" 2>/dev/null || true; } | sort; }

start=$SECONDS
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "-- fuzz $pkg $name for $FUZZTIME"
  for attempt in 1 2 3; do
    before=$(crashers "$pkg" "$name")
    if out=$(go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" 2>&1); then
      echo "$out" | grep -E '^fuzz: elapsed' | tail -1 || true
      break
    fi
    echo "$out" | grep -v '^fuzz: elapsed' | tail -40
    if [ "$(crashers "$pkg" "$name")" != "$before" ]; then
      echo "fuzz.sh: $pkg $name failed; commit the failing input under $pkg/testdata/fuzz/$name/ as a regression test and fix the bug"
      exit 1
    fi
    # A failure that wrote no input is the fuzzing engine's own, not a
    # crasher (a crash always writes its input): on a loaded machine the
    # engine's baseline run over the seed corpus can outlast -fuzztime and
    # end in "context deadline exceeded". Retry; after three such runs, say
    # so and go on (the seeds themselves run in every go test).
    if [ "$attempt" = 3 ]; then
      if grep -q 'context deadline exceeded' <<<"$out"; then
        echo "fuzz.sh: $pkg $name: the fuzzing engine timed out three times without a failing input; inconclusive, not a crash"
        break
      fi
      echo "fuzz.sh: $pkg $name failed three times without writing a failing input; see the output above"
      exit 1
    fi
    echo "fuzz.sh: $pkg $name failed without writing a failing input; retrying"
  done
done
echo "fuzz.sh: ${#targets[@]} targets, ${FUZZTIME} each, $((SECONDS - start))s in all"
