#!/usr/bin/env bash
# bench/run.sh — pmcheck's performance targets, measured against
# baselines in the same run on the same files, so the ratios hold on a
# noisy machine. Needs only Go and a POSIX shell with find, xargs, wc, cat.
#
#   bench/run.sh [WORKDIR]
#
# WORKDIR (default: a new temporary directory) receives the binaries and the
# generated corpora (about 1.5 GB with the defaults); corpora already there
# are reused. Knobs (environment): FLEET=100000 sessions and
# FLEET_SMALL=FLEET/10 (the linearity pair; 100,000 sessions are about
# 14 GB), HUGE_MIB=1024, RUNS=5 timed runs per command (the best wall time
# counts; fleets and the huge file run once, after one warm-up), REF_GATE
# (the reference resume gate's resume_gate.py, timed beside the hook).
# See docs/performance.md for what each figure means.
set -euo pipefail

cd "$(dirname "$0")/.."
WORK=${1:-$(mktemp -d "${TMPDIR:-/tmp}/pmcheck-bench.XXXXXX")}
FLEET=${FLEET:-100000}
FLEET_SMALL=${FLEET_SMALL:-$((FLEET / 10))}
HUGE_MIB=${HUGE_MIB:-1024}
RUNS=${RUNS:-5}
mkdir -p "$WORK"

echo "== environment"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "go:       $(go version)"
echo "os:       $(uname -srm)"
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
model=$( (grep -m1 'model name' /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.brand_string 2>/dev/null || echo '?') | sed 's/.*: //')
echo "cpus:     $cpus ($model)"
echo "load:     $( (cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*load averages*: //') )"
echo "workdir:  $WORK"

echo "== build"
# Built as release.yml builds it: static, without cgo (README, Install).
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/pmcheck" ./cmd/pmcheck
go build -o "$WORK/gencorpus" ./bench/gencorpus
go build -o "$WORK/timeit" ./bench/timeit

echo "== corpora (deterministic; reused when present)"
gen() { # gen DIR CMD... : write DIR with CMD unless it is complete
	local dir=$1
	shift
	if [ ! -e "$dir/.done" ]; then
		rm -rf "$dir"
		"$@"
		touch "$dir/.done"
	fi
	printf '%-10s %6s files %8s\n' "$(basename "$dir")" "$(find "$dir" -name '*.jsonl' | wc -l | tr -d ' ')" "$(du -sh "$dir" | cut -f1)"
}
gen "$WORK/large" "$WORK/gencorpus" -shape large -out "$WORK/large"
gen "$WORK/many" "$WORK/gencorpus" -shape many -out "$WORK/many"
gen "$WORK/fleet" "$WORK/pmcheck" fixtures write --scale "$FLEET" "$WORK/fleet"
gen "$WORK/fleet-small" "$WORK/pmcheck" fixtures write --scale "$FLEET_SMALL" "$WORK/fleet-small"
gen "$WORK/huge" "$WORK/gencorpus" -shape huge -size "$HUGE_MIB" -out "$WORK/huge"
gen "$WORK/wf6h" "$WORK/gencorpus" -shape workflow -span 6h -out "$WORK/wf6h"
gen "$WORK/wf6m" "$WORK/gencorpus" -shape workflow -span 6m -out "$WORK/wf6m"

# timed CMD... prints the timeit line (wall= cpu= rss_kib= exit=).
timed() { "$WORK/timeit" -n "$RUNS" -- "$@"; }
timed1() { "$WORK/timeit" -n 2 -- "$@"; } # large inputs: twice, the better counts (the first warms the page cache)
bytes() { find "$1" -name '*.jsonl' -exec cat {} + | wc -c | tr -d ' '; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }
verdict() { awk -v r="$1" -v op="$2" -v lim="$3" 'BEGIN { ok = (op == "<=") ? (r <= lim) : (r >= lim); print ok ? "met" : "NOT met" }'; }
baseline() { # baseline DIR TOOL: TOOL over every transcript under DIR
	timed sh -c "find '$1' -name '*.jsonl' -print0 | xargs -0 $2 >/dev/null"
}
# halves DIR: DIR.half1 and DIR.half2 hold every other top-level folder of
# DIR (hard links where cp can make them), made once.
halves() {
	[ -e "$1.half2/.done" ] && return
	rm -rf "$1.half1" "$1.half2"
	mkdir -p "$1.half1" "$1.half2"
	local i=0 d
	for d in "$1"/*/; do
		cp -al "$d" "$1.half$((i % 2 + 1))/" 2>/dev/null || cp -R "$d" "$1.half$((i % 2 + 1))/"
		i=$((i + 1))
	done
	touch "$1.half2/.done"
}
why=""
works() { # works CMD...: the command runs (exit 0, or 1 = findings); else why says so
	local out code=0
	out=$("$@" 2>&1 >/dev/null) || code=$?
	case $code in 0 | 1) return 0 ;; esac
	if printf '%s' "$out" | grep -q 'not built yet'; then
		why="not yet wired"
	else
		why="exit $code: $(printf '%s' "$out" | head -n 1)"
	fi
	return 1
}

echo "== 1. check vs wc -l: <= 3x on large (11 MB parent + 35 MB of subagents), <= 2.5x on many (47 MB in 65 files)"
check_works=no
wc_large=$(baseline "$WORK/large" "wc -l")
echo "wc -l large:         $wc_large"
if works "$WORK/pmcheck" check "$WORK/large"; then
	check_works=yes
	t_large=$(timed "$WORK/pmcheck" check "$WORK/large")
	echo "pmcheck check large: $t_large"
	r=$(ratio "$(echo "$t_large" | field wall)" "$(echo "$wc_large" | field wall)")
	echo "RATIO check/wc-l (large) = $r (target <= 3): $(verdict "$r" "<=" 3)"
	wc_many=$(baseline "$WORK/many" "wc -l")
	t=$(timed "$WORK/pmcheck" check "$WORK/many")
	echo "wc -l many:          $wc_many"
	echo "pmcheck check many:  $t"
	r=$(ratio "$(echo "$t" | field wall)" "$(echo "$wc_many" | field wall)")
	echo "RATIO check/wc-l (many) = $r (target <= 2.5): $(verdict "$r" "<=" 2.5)"
else
	echo "check: not measured ($why)"
fi
t=$(timed "$WORK/pmcheck" scan "$WORK/large")
echo "pmcheck scan large:  $t"
r=$(ratio "$(echo "$t" | field wall)" "$(echo "$wc_large" | field wall)")
echo "RATIO scan/wc-l (large) = $r (reading and linking alone)"

echo "== 2. a ${HUGE_MIB} MiB transcript: peak RSS < 64 MiB, wall <= 2x what large's throughput predicts"
cmd=scan
[ "$check_works" = yes ] && cmd=check
t_large=${t_large:-$(timed "$WORK/pmcheck" "$cmd" "$WORK/large")}
t=$(timed1 "$WORK/pmcheck" "$cmd" "$WORK/huge")
rss=$(echo "$t" | field rss_kib)
echo "pmcheck $cmd huge:  $t"
echo "RESULT peak RSS = $((rss / 1024)) MiB (target < 64): $(awk -v k="$rss" 'BEGIN { print (k > 0 && k < 64 * 1024) ? "met" : (k == 0 ? "not measured on this OS" : "NOT met") }')"
predicted=$(awk -v w="$(echo "$t_large" | field wall)" -v a="$(bytes "$WORK/huge")" -v b="$(bytes "$WORK/large")" 'BEGIN { printf "%.3f", w * a / b }')
r=$(ratio "$(echo "$t" | field wall)" "$predicted")
echo "RATIO huge wall / predicted from large ($predicted s) = $r (target <= 2): $(verdict "$r" "<=" 2)"

echo "== 3. fleets of $FLEET_SMALL and $FLEET sessions: linear cost, peak RSS < 256 MiB, 2 workers >= 1.8x faster than 1"
for c in scan check; do
	[ "$c" = check ] && [ "$check_works" != yes ] && continue
	a=$(timed1 "$WORK/pmcheck" "$c" "$WORK/fleet-small")
	b=$(timed1 "$WORK/pmcheck" "$c" "$WORK/fleet")
	echo "$c $FLEET_SMALL:  $a"
	echo "$c $FLEET:  $b"
	r=$(awk -v a="$(echo "$a" | field wall)" -v b="$(echo "$b" | field wall)" -v n="$FLEET_SMALL" -v m="$FLEET" 'BEGIN { printf "%.2f", (b / m) / (a / n) }')
	echo "RATIO $c time per session, $FLEET vs $FLEET_SMALL = $r (target <= 1.3): $(verdict "$r" "<=" 1.3)"
	rss=$(echo "$b" | field rss_kib)
	echo "RESULT $c $FLEET peak RSS = $((rss / 1024)) MiB (target < 256): $(awk -v k="$rss" 'BEGIN { print (k > 0 && k < 256 * 1024) ? "met" : "NOT met" }')"
	t1=$(timed "$WORK/pmcheck" "$c" --jobs 1 "$WORK/fleet-small")
	t2=$(timed "$WORK/pmcheck" "$c" --jobs 2 "$WORK/fleet-small")
	echo "$c --jobs 1 ($FLEET_SMALL): $t1"
	echo "$c --jobs 2 ($FLEET_SMALL): $t2"
	r=$(ratio "$(echo "$t1" | field wall)" "$(echo "$t2" | field wall)")
	echo "RATIO $c jobs1/jobs2 = $r (target >= 1.8): $(verdict "$r" ">=" 1.8)"
	# What two cores of this machine give work that shares nothing: two
	# --jobs 1 processes, each over half of the sessions' folders, at once.
	# Page faults, timer sleeps and memory bandwidth cost what they cost
	# here; jobs2 can only approach this figure.
	halves "$WORK/fleet-small"
	tp=$(timed sh -c "'$WORK/pmcheck' $c --jobs 1 '$WORK/fleet-small.half1' >/dev/null & '$WORK/pmcheck' $c --jobs 1 '$WORK/fleet-small.half2' >/dev/null; wait")
	echo "$c --jobs 1 on each half, at once: $tp"
	rc=$(ratio "$(echo "$t1" | field wall)" "$(echo "$tp" | field wall)")
	echo "RATIO $c jobs1 / two processes = $rc (this machine's ceiling for 2 workers); jobs2 reaches $(ratio "$r" "$rc") of it"
done
if [ "$cpus" != "?" ] && [ "$cpus" -lt 2 ]; then echo "  (only $cpus CPU: two workers cannot run at once here)"; fi
# What two cores give work that shares nothing, by kind: a loop that
# touches no memory, and copying the fleet's bytes from the page cache.
# On a machine whose page faults and copies do not run in parallel (a
# paravirtualised guest) the second is far below 2 and bounds the first
# ratio above (docs/performance.md, Page faults, TLB flushes and the heap
# reserve).
spin="awk 'BEGIN { for (i = 0; i < 20000000; i++) x += i }'"
s1=$(timed sh -c "$spin")
s2=$(timed sh -c "$spin & $spin; wait")
echo "RATIO machine: a loop, one vs two at once = $(ratio "$(awk -v a="$(echo "$s1" | field wall)" 'BEGIN { print 2 * a }')" "$(echo "$s2" | field wall)") (2 when the cores are free)"
c1=$(timed sh -c "find '$WORK/fleet-small' -name '*.jsonl' -print0 | xargs -0 wc -l >/dev/null")
c2=$(timed sh -c "find '$WORK/fleet-small.half1' -name '*.jsonl' -print0 | xargs -0 wc -l >/dev/null & find '$WORK/fleet-small.half2' -name '*.jsonl' -print0 | xargs -0 wc -l >/dev/null; wait")
echo "RATIO machine: wc -l of the fleet, whole vs two halves at once = $(ratio "$(echo "$c1" | field wall)" "$(echo "$c2" | field wall)") (reading from the page cache)"
cat_fleet=$(baseline "$WORK/fleet-small" cat)
t=$(timed "$WORK/pmcheck" scan --jobs 2 "$WORK/fleet-small")
echo "cat ($FLEET_SMALL):     $cat_fleet"
r=$(ratio "$(echo "$t" | field wall)" "$(echo "$cat_fleet" | field wall)")
echo "RATIO scan(2 jobs)/cat = $r (target <= 5): $(verdict "$r" "<=" 5)"

echo "== 4. replay of a six-hour run: within 1.2x of the same rows in six minutes"
run6h=$(find "$WORK/wf6h" -name journal.jsonl -exec dirname {} \;)
run6m=$(find "$WORK/wf6m" -name journal.jsonl -exec dirname {} \;)
if works "$WORK/pmcheck" replay --max-hours 7 "$run6h"; then
	a=$(timed "$WORK/pmcheck" replay --max-hours 7 "$run6h")
	b=$(timed "$WORK/pmcheck" replay --max-hours 7 "$run6m")
	echo "replay 6h:     $a"
	echo "replay 6m:     $b"
	r=$(ratio "$(echo "$a" | field wall)" "$(echo "$b" | field wall)")
	echo "RATIO replay6h/replay6m = $r (target <= 1.2): $(verdict "$r" "<=" 1.2)"
else
	echo "replay: not measured ($why)"
fi
echo "== 5. hook: a Bash call that is not a ship action, p50 <= 5 ms whatever the session's length (every Bash call runs the gate)"
parent=$(find "$WORK/large" -maxdepth 1 -name '*.jsonl' | head -n 1)
printf '{"transcript_path":"%s","cwd":"%s","tool_name":"Bash","tool_input":{"command":"ls -la"}}' "$parent" "$WORK" >"$WORK/hook-nonship.json"
printf '{"transcript_path":"%s","cwd":"%s","tool_name":"Bash","tool_input":{"command":"git push origin HEAD"}}' "$parent" "$WORK" >"$WORK/hook-ship.json"
t=$("$WORK/timeit" -n 100 -stdin "$WORK/hook-nonship.json" -- "$WORK/pmcheck" hook pre-tool-use)
echo "hook pre-tool-use, ls -la (large parent):        $t"
p50=$(awk -v s="$(echo "$t" | field p50)" 'BEGIN { printf "%.2f", s * 1000 }')
echo "RESULT non-ship call p50 = $p50 ms (target <= 5): $(verdict "$p50" "<=" 5)"
# A gated push: read in full every time (no cache directory can be
# written), then answered from the memo of the first call (the transcript
# is unchanged between the calls).
full=$(PMCHECK_CACHE_DIR=/dev/null/pmcheck "$WORK/timeit" -n 40 -stdin "$WORK/hook-ship.json" -- "$WORK/pmcheck" hook pre-tool-use)
echo "hook pre-tool-use, git push, full read:        $full"
rm -rf "$WORK/hook-cache"
memo=$(PMCHECK_CACHE_DIR="$WORK/hook-cache" "$WORK/timeit" -n 40 -stdin "$WORK/hook-ship.json" -- "$WORK/pmcheck" hook pre-tool-use)
echo "hook pre-tool-use, git push, unchanged (memo): $memo"
echo "RATIO gated push, memo / full read (p50) = $(ratio "$(echo "$memo" | field p50)" "$(echo "$full" | field p50)")"
# A gated push after one row (the call's own shell command) was appended
# since the hook's last call: the call reads the appended row alone. On a
# copy of the parent's folder, which grows by a row before each call.
rm -rf "$WORK/hook-append" "$WORK/hook-cache" && mkdir -p "$WORK/hook-append"
cp -R "$(dirname "$parent")/." "$WORK/hook-append/"
grown="$WORK/hook-append/$(basename "$parent")"
printf '{"transcript_path":"%s","cwd":"%s","tool_name":"Bash","tool_input":{"command":"git push origin HEAD"}}' "$grown" "$WORK" >"$WORK/hook-grown.json"
printf '%s\n' '{"type":"assistant","uuid":"c0000000-0000-4000-8000-0000{n}","timestamp":"2099-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_bench_{n}","name":"Bash","input":{"command":"git push origin HEAD"}}]}}' >"$WORK/hook-row.jsonl"
# The hook has seen it, after a first row: the generated subagents write
# after the parent's last row, and a reading is carried only once the
# parent's end is past every other file's (docs/hooks.md).
sed 's/{n}/seen/g' "$WORK/hook-row.jsonl" >>"$grown"
PMCHECK_CACHE_DIR="$WORK/hook-cache" "$WORK/pmcheck" hook pre-tool-use <"$WORK/hook-grown.json" >/dev/null
appended=$(PMCHECK_CACHE_DIR="$WORK/hook-cache" "$WORK/timeit" -n 60 -stdin "$WORK/hook-grown.json" -append "$WORK/hook-row.jsonl" -to "$grown" -- "$WORK/pmcheck" hook pre-tool-use)
echo "hook pre-tool-use, git push, one row appended:  $appended"
p99=$(awk -v s="$(echo "$appended" | field p99)" 'BEGIN { printf "%.2f", s * 1000 }')
echo "RESULT gated push after an append p99 = $p99 ms as a process (target <= 10 in go test ./hook -bench Appended): $(verdict "$p99" "<=" 10)"
# A gated push after rows the gate reads were appended (an Agent call and
# its result: the reading cannot be carried over them): the call decodes
# them alone through the transcript readers an earlier call kept.
printf '%s\n%s\n' '{"type":"assistant","uuid":"d0000000-0000-4000-8000-0000{n}","timestamp":"2099-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_agent_{n}","name":"Agent","input":{"description":"Check the docs {n}","prompt":"Check the docs."}}]}}' \
	'{"type":"user","uuid":"e0000000-0000-4000-8000-0000{n}","timestamp":"2099-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_agent_{n}","content":"Done."}]}}' >"$WORK/hook-read-rows.jsonl"
readrows=$(PMCHECK_CACHE_DIR="$WORK/hook-cache" "$WORK/timeit" -n 60 -stdin "$WORK/hook-grown.json" -append "$WORK/hook-read-rows.jsonl" -to "$grown" -- "$WORK/pmcheck" hook pre-tool-use)
echo "hook pre-tool-use, git push, rows it reads:     $readrows"
p99=$(awk -v s="$(echo "$readrows" | field p99)" 'BEGIN { printf "%.2f", s * 1000 }')
echo "RESULT gated push after rows the gate reads p99 = $p99 ms as a process (target <= 10 in go test ./hook -bench ReadRowAppended): $(verdict "$p99" "<=" 10)"
echo "RATIO gated push after rows the gate reads / full read (p50) = $(ratio "$(echo "$readrows" | field p50)" "$(echo "$full" | field p50)")"
# The reference hook (Python) on the same call, when REF_GATE names its
# resume_gate.py (wan-huiyan/agent-traffic-control; not part of this
# repository).
if [ -n "${REF_GATE:-}" ] && command -v python3 >/dev/null; then
	ref=$("$WORK/timeit" -n 20 -stdin "$WORK/hook-grown.json" -append "$WORK/hook-row.jsonl" -to "$grown" -- python3 "$REF_GATE" pre-tool-use)
	echo "reference hook, git push, one row appended:     $ref"
	ratio4() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "inf" }'; }
	r=$(ratio4 "$(echo "$appended" | field p50)" "$(echo "$ref" | field p50)")
	echo "RATIO gated push after an append, pmcheck / reference (p50) = $r, CPU of the best runs $(ratio4 "$(echo "$appended" | field cpu)" "$(echo "$ref" | field cpu)") (target <= 0.02): $(verdict "$r" "<=" 0.02)"
else
	echo "reference hook: not measured (set REF_GATE to its resume_gate.py)"
fi

echo "== 6. watch of a 6-hour Workflow run written row by row (>= 200 MB): total CPU <= 2x one replay, peak RSS <= check's"
# The Go benchmark writes the run (the wf6h shape with 28,000 rows per agent:
# 8 agents, 196 MiB, over 6 hours) row by row on a scripted clock, polled
# every 5 s (4,320 polls), and measures check's and the watch's peak RSS
# each in a process of its own. The CPU times are measured three times on
# each side, alternately (WATCH_REPEAT): the least over the least, and the
# median over the median.
out=$(PMCHECK_WATCH_ROWS=${WATCH_ROWS:-28000} PMCHECK_WATCH_REPEAT=${WATCH_REPEAT:-3} PMCHECK_WATCH_RSS=1 PMCHECK_WATCH_RELOAD=${WATCH_RELOAD:-} go test ./cmd/pmcheck -run '^$' -bench '^BenchmarkWatchRowByRow$' -benchtime 1x -timeout 60m 2>&1 | grep '^BenchmarkWatchRowByRow' || true)
echo "$out"
r=$(echo "$out" | sed -n 's|.* \([0-9.]*\) watch-cpu/replay.*|\1|p')
if [ -n "$r" ]; then
	echo "RATIO watch CPU / replay CPU, least of each = $r (target <= 2): $(verdict "$r" "<=" 2)"
	m=$(echo "$out" | sed -n 's|.* \([0-9.]*\) median-cpu/replay.*|\1|p')
	echo "RATIO watch CPU / replay CPU, median of each = $m (target <= 2): $(verdict "$m" "<=" 2)"
else
	echo "watch: not measured (the benchmark failed)"
fi
crss=$(echo "$out" | sed -n 's|.* \([0-9.]*\) check-rss-MiB.*|\1|p')
wrss=$(echo "$out" | sed -n 's|.* \([0-9.]*\) watch-rss-MiB.*|\1|p')
if [ -n "$crss" ] && [ -n "$wrss" ]; then
	rr=$(ratio "$wrss" "$crss")
	echo "RATIO watch peak RSS / check peak RSS = $rr (target <= 1): $(verdict "$rr" "<=" 1)"
fi
echo "load:     $( (cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*load averages*: //') ) (at the end)"
