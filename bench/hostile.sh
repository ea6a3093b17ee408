#!/usr/bin/env bash
# bench/hostile.sh — the hostile inputs of issue 12 against a corpus-shaped
# input of the same size: every command must stay within 10x the baseline's
# wall time and under 512 MiB peak RSS. Needs Go, coreutils and GNU time
# (/usr/bin/time -v).
#
#   bench/hostile.sh [WORKDIR]
#
# WORKDIR (default: a new temporary directory, removed at the end) receives
# the binaries and the inputs, built by bench/hostile (go run ./bench/hostile
# -case list) from fixture rows and padded towards SIZE_MIB (default 100).
# Two corpus-shaped baselines: a fleet of sessions (`pmcheck fixtures write
# --scale FLEET`, default 7 per MiB, about SIZE_MIB) and one transcript of
# SIZE_MIB (`gencorpus -shape huge`, large rows, read fastest). A case's ratio
# is its wall time over a baseline's, scaled by size (at least 0.05 s); the
# verdict is against the fleet, and the ratio to the one transcript is shown
# beside it.
# Each case runs `check --format json=/dev/null` and `check` (text to
# /dev/null) RUNS times (default 1), keeping the fastest wall time and the
# peak RSS of that run; CASES="a b" runs only the named cases (the baselines
# always run); findings-200k (200,000 findings of one run) also runs
# every other format (`--format F=/dev/null`), each against the JSON
# baseline. See docs/reliability.md for the last table.
set -euo pipefail

cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
	WORK=$1
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmcheck-hostile.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi
SIZE_MIB=${SIZE_MIB:-100}
FLEET=${FLEET:-$((SIZE_MIB * 7))}
RUNS=${RUNS:-1}
MAX_RATIO=10
MAX_RSS_MIB=512

echo "== environment"
echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "go:     $(go version)"
echo "cpus:   $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
echo "uptime: $(uptime) (best of $RUNS)"

# Built as release.yml builds it: static, without cgo (README, Install).
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/pmcheck" ./cmd/pmcheck
go build -o "$WORK/gencorpus" ./bench/gencorpus
go build -o "$WORK/hostile" ./bench/hostile

gen() { # gen DIR CMD...: write DIR with CMD unless it is complete
	local dir=$1
	shift
	if [ ! -e "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		"$@"
		touch "$dir/.done"
	fi
}
bytes() { find "$1" -type f ! -name .done -exec cat {} + | wc -c | tr -d ' '; }
# measure DIR ARGS...: "wall_s rss_kib exit" of one pmcheck run under GNU time.
measure() {
	local dir=$1 code=0
	shift
	/usr/bin/time -v -o "$WORK/time.out" "$WORK/pmcheck" check "$@" "$dir" >/dev/null 2>"$WORK/stderr.out" || code=$?
	awk -v code="$code" '
		/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
		/Maximum resident set size/ { r = $NF }
		/Command exited with non-zero status/ { code = $NF }
		END { printf "%.2f %d %d\n", w, r, code }' "$WORK/time.out"
}

# best DIR ARGS...: measure RUNS times, print the fastest run's line.
best() {
	local i
	for ((i = 0; i < RUNS; i++)); do measure "$@"; done | sort -n | head -n 1
}

echo "== inputs (~$SIZE_MIB MiB each)"
gen "$WORK/baseline" "$WORK/gencorpus" -shape huge -size "$SIZE_MIB" -out "$WORK/baseline"
gen "$WORK/fleet" "$WORK/pmcheck" fixtures write --scale "$FLEET" "$WORK/fleet"
if [ -n "${CASES:-}" ]; then
	read -r -a CASES <<<"$CASES"
else
	mapfile -t CASES < <("$WORK/hostile" -case list)
fi
for c in "${CASES[@]}"; do
	gen "$WORK/$c" "$WORK/hostile" -case "$c" -size "$SIZE_MIB" -out "$WORK/$c"
done

declare -A BASE BYTES
BYTES[one]=$(bytes "$WORK/baseline")
BYTES[fleet]=$(bytes "$WORK/fleet")
printf '%-20s %-8s %6s  %8s  %7s  %7s  %8s  %4s  %s\n' case report MB wall ratio 1-file rss_MiB exit verdict
for f in json text; do
	args=(--format json=/dev/null)
	[ $f = text ] && args=()
	for b in one fleet; do
		d=$WORK/baseline
		[ $b = fleet ] && d=$WORK/fleet
		measure "$d" "${args[@]}" >/dev/null # warm the page cache
		read -r w r e < <(best "$d" "${args[@]}")
		BASE[$b$f]=$w
		printf '%-20s %-8s %6s  %7ss  %7s  %7s  %8s  %4s  %s\n' "baseline-$b" "$f" "$((BYTES[$b] / 1000000))" "$w" - - "$((r / 1024))" "$e" "(baseline)"
	done
done

ratio() { # ratio WALL BYTES BASELINE REPORT
	awk -v w="$1" -v b="$2" -v bw="${BASE[$3$4]}" -v bb="${BYTES[$3]}" 'BEGIN { s = bw * b / bb; if (s < 0.05) s = 0.05; printf "%.1f", w / s }'
}
fails=0
runs=0
for c in "${CASES[@]}"; do
	b=$(bytes "$WORK/$c")
	formats=(json text)
	[ "$c" = findings-200k ] && formats=(json text sarif junit github markdown html)
	for f in "${formats[@]}"; do
		args=(--format "$f=/dev/null")
		[ $f = text ] && args=()
		bf=$f
		[ $f = text ] || bf=json
		read -r w r e < <(best "$WORK/$c" "${args[@]}")
		runs=$((runs + 1))
		q=$(ratio "$w" "$b" fleet $bf)
		q1=$(ratio "$w" "$b" one $bf)
		verdict=$(awk -v q="$q" -v r="$r" -v mq=$MAX_RATIO -v mr=$MAX_RSS_MIB 'BEGIN { v = ""; if (q > mq) v = v " time"; if (r / 1024 >= mr) v = v " rss"; print v == "" ? "PASS" : "FAIL" v }')
		[ "${verdict%% *}" = PASS ] || fails=$((fails + 1))
		printf '%-20s %-8s %6s  %7ss  %7s  %7s  %8s  %4s  %s\n' "$c" "$f" "$((b / 1000000))" "$w" "$q" "$q1" "$((r / 1024))" "$e" "$verdict"
	done
done
echo "uptime: $(uptime) (best of $RUNS)"
echo "$fails of $runs runs over ${MAX_RATIO}x the baseline's time (scaled by size) or ${MAX_RSS_MIB} MiB"
