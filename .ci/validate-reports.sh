#!/usr/bin/env bash
# Validates pmcheck's CI surface on a fresh Debian machine (installs what it needs):
#   1. the SARIF and JUnit reports of every fixture (committed report goldens, their
#      re-rendering by `pmcheck render`, and `pmcheck check` on each fixtures/runs/*):
#      SARIF against the official 2.1.0 schema plus GitHub's rules (Go test
#      TestExternalReports) and, when installable, Microsoft's SARIF Multitool with its
#      GitHub rule set; JUnit against report/testdata/junit-subset.xsd with xmllint;
#   2. every workflow, the workflows in docs/ci.md and action.yml's interface, with
#      actionlint (and shellcheck on the action's run: scripts);
#   3. the composite action's shell steps, run against a fixture as GitHub would run them.
# Exits non-zero on any schema error or lint finding.
# Env: PMCHECK_CI_TOOLS (tool cache, default ~/.cache/pmcheck-ci-tools),
#      PMCHECK_SKIP_MULTITOOL=1 to skip the 100 MB Multitool download,
#      PMCHECK_ACTION_FIXTURE=fixtures/runs/NAME for the action smoke test
#      (default: rule-killed-subagent-shipped-unreviewed-bad, which has findings).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
tools="${PMCHECK_CI_TOOLS:-$HOME/.cache/pmcheck-ci-tools}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$tools" "$work/bin" "$work/reports"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ---- tools -------------------------------------------------------------------------
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq >/dev/null; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
command -v xmllint >/dev/null || { echo "installing libxml2-utils (xmllint)"; apt_install libxml2-utils; }
command -v shellcheck >/dev/null || { echo "installing shellcheck"; apt_install shellcheck; }
command -v jq >/dev/null || { echo "installing jq"; apt_install jq; }
py=python3
if ! { command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null; }; then
  echo "installing python3-yaml"; apt_install python3 python3-yaml; py=/usr/bin/python3
fi
echo "building actionlint v1.7.12 and pmcheck"
GOBIN="$work/bin" go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
go build -o "$work/bin/pmcheck" ./cmd/pmcheck
export PATH="$work/bin:$PATH"

multitool=""
if [ "${PMCHECK_SKIP_MULTITOOL:-0}" != 1 ]; then
  mt_dir="$tools/node_modules/@microsoft/sarif-multitool-linux"
  if [ ! -x "$mt_dir/Sarif.Multitool" ] && npm view @microsoft/sarif-multitool-linux@5.7.0 version >/dev/null 2>&1; then
    echo "installing @microsoft/sarif-multitool-linux@5.7.0 from npm"
    (cd "$tools" && { [ -f package.json ] || npm init -y >/dev/null; } &&
      npm install --no-audit --no-fund --save-exact @microsoft/sarif-multitool-linux@5.7.0 >/dev/null 2>&1) || true
    chmod u+x "$mt_dir/Sarif.Multitool" 2>/dev/null || true
  fi
  # .NET needs libicu unless told to run culture-invariant, which is all a validator needs.
  export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1
  if [ -x "$mt_dir/Sarif.Multitool" ] &&
    "$mt_dir/Sarif.Multitool" validate golden/report/clean.sarif.golden --rule-kind "Ghas;Sarif" -o "$work/mt-probe.sarif" >/dev/null 2>&1 &&
    [ -s "$work/mt-probe.sarif" ]; then
    multitool="$mt_dir/Sarif.Multitool"
  else
    echo "note: SARIF Multitool not installable or not runnable here; the schema and Go checks still run"
  fi
fi

# ---- 1. reports of every fixture ----------------------------------------------------
sarifs=(); junits=()
# Committed report goldens, and their re-rendering from the saved JSON.
for g in golden/report/*.json.golden; do
  name=$(basename "$g" .json.golden)
  sarifs+=("golden/report/$name.sarif.golden")
  junits+=("golden/report/$name.xml.golden")
  pmcheck render --format "sarif=$work/reports/golden-$name.sarif" --format "junit=$work/reports/golden-$name.xml" "$g"
  pmcheck render --junit-no-file-line --format "junit=$work/reports/golden-$name-nofileline.xml" "$g"
  sarifs+=("$work/reports/golden-$name.sarif")
  junits+=("$work/reports/golden-$name.xml" "$work/reports/golden-$name-nofileline.xml")
  cmp -s "$work/reports/golden-$name.sarif" "golden/report/$name.sarif.golden" ||
    fail "pmcheck render of $g differs from golden/report/$name.sarif.golden"
done
# pmcheck check on every generated fixture.
for run in fixtures/runs/*/; do
  run=${run%/}; name=$(basename "$run")
  code=0
  pmcheck check --fail-level none --format "json=$work/reports/check-$name.json" \
    --format "sarif=$work/reports/check-$name.sarif" --format "junit=$work/reports/check-$name.xml" \
    -- "$run" >/dev/null 2>"$work/check.err" || code=$?
  if [ "$code" = 2 ]; then echo "note: $run is refused as input (exit 2, by design for adversarial fixtures): $(cat "$work/check.err")"; continue; fi
  if [ "$code" != 0 ]; then fail "pmcheck check --fail-level none $run exited $code: $(cat "$work/check.err")"; continue; fi
  sarifs+=("$work/reports/check-$name.sarif"); junits+=("$work/reports/check-$name.xml")
done

# pmcheck rules test: the default rules' passing suite, and a failing case.
pmcheck rules test --format "junit=$work/reports/rules-test.xml" fixtures/runs >/dev/null ||
  fail "pmcheck rules test fixtures/runs failed"
mkdir -p "$work/rules-test"
cp -R fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad "$work/rules-test/"
printf 'version: 1\nfindings:\n  - rule: false-done\n    at: x.jsonl:1\n' >"$work/rules-test/rule-killed-subagent-shipped-unreviewed-bad/expect.yaml"
code=0
pmcheck rules test --format "junit=$work/reports/rules-test-failing.xml" "$work/rules-test" >/dev/null || code=$?
[ "$code" = 1 ] || fail "pmcheck rules test on a failing case exited $code, want 1"
junits+=("$work/reports/rules-test.xml" "$work/reports/rules-test-failing.xml")

# ---- 3 (first, so its reports are validated too). The action's shell steps -----------
cat >"$work/run_action.py" <<'PY'
"""Runs action.yml's composite steps as the GitHub runner would: `uses:` steps are
reported and skipped (they need GitHub), `run:` steps get their env: with ${{ }}
expressions evaluated, then run with `bash --noprofile --norc -eo pipefail`."""
import os, re, subprocess, sys, yaml

action_path, workspace, runner_temp, inputs_file = sys.argv[1:5]
action = yaml.safe_load(open(os.path.join(action_path, "action.yml")))
inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
inputs.update(yaml.safe_load(open(inputs_file)))
outputs = {}
summary = os.path.join(runner_temp, "step-summary.md")
open(summary, "w").close()

def evaluate(text):
    def sub(m):
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        m2 = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if m2:
            return outputs.get(m2.group(1), {}).get(m2.group(2), "")
        if expr == "github.action_path":
            return action_path
        # The smoke test runs as a push event outside GitHub: no pull request
        # payload (its fields are empty) and no token.
        if expr == "github.event_name":
            return "push"
        if expr == "github.token":
            return ""
        if all(part.strip().startswith("github.event.") for part in expr.split("||")):
            return ""
        raise SystemExit(f"run_action: expression not supported by the smoke test: {expr}")
    return re.sub(r"\$\{\{(.*?)\}\}", sub, str(text))

problems = []
exit_code = 0
for i, step in enumerate(action["runs"]["steps"]):
    name = step.get("name", f"step {i + 1}")
    if "run" in step and "${{" in step["run"]:
        problems.append(f"{name}: run: contains a ${{{{ }}}} expression; pass values through env:")
    if "uses" in step:
        cond = str(step.get("if", ""))
        print(f"  skip (needs GitHub): {name}: uses {step['uses']}" + (f" if {cond}" if cond else ""))
        if "upload-sarif" in step["uses"] and "always()" not in cond:
            problems.append(f"{name}: SARIF upload must run under if: always()")
        continue
    if exit_code != 0 and "always()" not in str(step.get("if", "")):
        print(f"  skip (an earlier step failed): {name}")
        continue
    out_file = os.path.join(runner_temp, f"output-{i}")
    open(out_file, "w").close()
    env = dict(os.environ)
    env.update({k: evaluate(v) for k, v in (step.get("env") or {}).items()})
    env.update(GITHUB_OUTPUT=out_file, GITHUB_STEP_SUMMARY=summary, RUNNER_TEMP=runner_temp,
               GITHUB_ACTION_PATH=action_path, GITHUB_WORKSPACE=workspace)
    cwd = os.path.join(workspace, evaluate(step.get("working-directory", ".")))
    script = os.path.join(runner_temp, f"step-{i}.sh")
    open(script, "w").write(step["run"])
    print(f"  run: {name}")
    # The step's output holds workflow commands (annotations); keep it out of
    # this log so a CI run of this script does not annotate itself, and show it
    # prefixed on failure.
    log = os.path.join(runner_temp, f"step-{i}.log")
    with open(log, "w") as lf:
        rc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=cwd, env=env,
                            stdout=lf, stderr=subprocess.STDOUT).returncode
    if rc not in (0, 1):
        for line in open(log, errors="replace"):
            print("    | " + line.rstrip("\n"))
    outputs[step.get("id", f"_{i}")] = dict(
        line.split("=", 1) for line in open(out_file).read().splitlines() if "=" in line)
    print(f"    exit {rc}; outputs {outputs[step.get('id', f'_{i}')]}")
    if rc != 0:
        exit_code = rc
print(f"ACTION_EXIT={exit_code}")
for k, v in outputs.get("check", {}).items():
    print(f"CHECK_{k.upper().replace('-', '_')}={v}")
for p in problems:
    print(f"PROBLEM: {p}")
PY

ws="$work/workspace"; rt="$work/runner-temp"; mkdir -p "$ws" "$rt"
fixture=${PMCHECK_ACTION_FIXTURE:-fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad}
# The repository under check keeps its runs in a subfolder that is also the
# action's working-directory, with a .pmcheck.yaml there and no paths input:
# the config names the runs, and report paths must still be repository paths.
wd="$ws/sub"; mkdir -p "$wd"
cp -r "$fixture" "$wd/runs"
printf 'paths: [runs]\n' >"$wd/.pmcheck.yaml"
# A stale report committed in the pull request must never survive the run.
echo '{"stale": true}' >"$wd/pmcheck.sarif"
printf 'working-directory: sub\nupload-sarif: "false"\n' >"$work/inputs.yml"
echo "== composite action against $fixture (working-directory sub, config file, stale pmcheck.sarif)"
"$py" "$work/run_action.py" "$repo" "$ws" "$rt" "$work/inputs.yml" | tee "$work/action.log"
action_exit=$(sed -n 's/^ACTION_EXIT=//p' "$work/action.log")
check_exit=$(sed -n 's/^CHECK_EXIT_CODE=//p' "$work/action.log")
while IFS= read -r line; do fail "action.yml: ${line#PROBLEM: }"; done < <(grep '^PROBLEM: ' "$work/action.log" || true)
case "$check_exit" in
  0|1) [ "$action_exit" = "$check_exit" ] || fail "action exited $action_exit but its check step reported exit-code=$check_exit" ;;
  *) fail "the action's check step exited '${check_exit:-none}' (want 0 or 1)" ;;
esac
for f in pmcheck.sarif pmcheck-junit.xml pmcheck.json pmcheck.html; do
  [ -s "$wd/$f" ] || fail "the action did not write $f"
done
grep -q '"stale"' "$wd/pmcheck.sarif" && fail "the stale pmcheck.sarif was kept"
grep -q '^## pmcheck: ' "$rt/step-summary.md" || fail "the action wrote no job summary"
annotations=$(cat "$rt"/step-*.log | grep -c '^::\(error\|warning\) file=' || true)
if [ "$check_exit" = 1 ] && [ "$annotations" -eq 0 ]; then fail "the check failed but the action printed no annotation"; fi
if [ "$annotations" -gt 20 ]; then fail "the action printed $annotations annotations (GitHub shows 10 errors + 10 warnings)"; fi
# Paths are relative to the repository root, not to working-directory.
bad_ann=$(cat "$rt"/step-*.log | grep '^::\(error\|warning\) file=' | grep -cv '^::[a-z]* file=sub/runs/' || true)
[ "$bad_ann" -eq 0 ] || fail "$bad_ann annotation(s) name a file outside sub/runs/ (paths must be relative to the repository root)"
if [ -s "$wd/pmcheck.sarif" ]; then
  bad_uri=$(jq -r '[.runs[].results[].locations[].physicalLocation.artifactLocation.uri | select(startswith("sub/runs/") | not)] | length' "$wd/pmcheck.sarif")
  [ "$bad_uri" = 0 ] || fail "$bad_uri SARIF result URI(s) are not repository paths under sub/runs/"
fi
if [ -s "$wd/pmcheck.json" ]; then
  failed=$(jq -r .outcome.failed "$wd/pmcheck.json")
  { [ "$failed" = true ] && [ "$check_exit" = 1 ]; } || { [ "$failed" = false ] && [ "$check_exit" = 0 ]; } ||
    fail "exit code $check_exit disagrees with outcome.failed=$failed in the JSON report"
fi
[ -s "$wd/pmcheck.sarif" ] && sarifs+=("$wd/pmcheck.sarif")
[ -s "$wd/pmcheck-junit.xml" ] && junits+=("$wd/pmcheck-junit.xml")

# An early exit (a path that does not exist) leaves no report behind: the
# stale files are gone, nothing is marked for upload, the step fails with 2.
ws2="$work/workspace2"; rt2="$work/runner-temp2"; mkdir -p "$ws2" "$rt2"
for f in pmcheck.sarif pmcheck.json pmcheck-junit.xml; do echo stale >"$ws2/$f"; done
printf 'paths: no-such-folder\nupload-sarif: "false"\n' >"$work/inputs2.yml"
echo "== composite action exiting early, with stale reports in the workspace"
"$py" "$work/run_action.py" "$repo" "$ws2" "$rt2" "$work/inputs2.yml" >"$work/action2.log"
[ "$(sed -n 's/^CHECK_EXIT_CODE=//p' "$work/action2.log")" = 2 ] || fail "the action on a missing path did not report exit-code=2: $(cat "$work/action2.log")"
[ "$(sed -n 's/^CHECK_SARIF_WRITTEN=//p' "$work/action2.log")" = false ] || fail "a stale SARIF file was marked for upload"
for f in pmcheck.sarif pmcheck.json pmcheck-junit.xml; do
  [ -e "$ws2/$f" ] && fail "the stale $f survived an early exit"
done

# ---- 1 (cont.). Validate every SARIF and JUnit file collected ----------------------------
echo "== validating ${#sarifs[@]} SARIF and ${#junits[@]} JUnit files"
# go test runs in ./report: hand it absolute paths, joined with ':'.
abs_list() { local out=() f; for f in "$@"; do case "$f" in /*) out+=("$f") ;; *) out+=("$repo/$f") ;; esac; done; (IFS=:; echo "${out[*]}"); }
PMCHECK_VALIDATE_SARIF=$(abs_list "${sarifs[@]}") PMCHECK_VALIDATE_JUNIT=$(abs_list "${junits[@]}") \
  go test -count=1 -run '^TestExternalReports$' -v ./report | grep -E '^(---|ok|FAIL|\s+external_test)' || fail "SARIF/JUnit Go validation"
for f in "${junits[@]}"; do
  xmllint --noout --schema report/testdata/junit-subset.xsd "$f" 2>"$work/xmllint.err" || fail "xmllint: $(cat "$work/xmllint.err")"
done
if [ -n "$multitool" ]; then
  # One invocation for all files (each start of the .NET tool costs seconds);
  # numbered copies keep the names apart and say which input failed.
  mkdir -p "$work/mt"
  i=0
  for f in "${sarifs[@]}"; do
    i=$((i + 1)); cp "$f" "$work/mt/$(printf '%03d' "$i")-$(basename "$f" .golden | tr -c 'A-Za-z0-9._\n-' _).sarif"
  done
  # The Multitool exits 0 even when it reports errors; gate on its log.
  "$multitool" validate "$work"/mt/*.sarif --rule-kind "Ghas;Sarif" -o "$work/mt-out.sarif" >/dev/null 2>&1 || true
  if [ ! -s "$work/mt-out.sarif" ]; then
    fail "SARIF Multitool wrote no log"
  elif ! jq -e '[.runs[].results[] | select((.level // "warning") == "error")] | length == 0' "$work/mt-out.sarif" >/dev/null; then
    fail "SARIF Multitool (GitHub rules): $(jq -r '[.runs[].results[] | select((.level // "warning") == "error") | "\(.ruleId) in \(.locations[0].physicalLocation.artifactLocation.uri // "?" | sub(".*/"; "")) \(.message.arguments // [] | join(" "))"] | join("; ")' "$work/mt-out.sarif")"
  else
    echo "SARIF Multitool (Ghas;Sarif rules): ${#sarifs[@]} files, no errors"
  fi
fi

# ---- 2. actionlint ---------------------------------------------------------------------
echo "== actionlint"
# Nested actions and the project's workflows are pinned by full commit SHA with the tag in a comment.
unpinned=$(grep -nE '^\s*(- )?uses: ' action.yml .github/workflows/*.yml | grep -vE 'uses: \./|@[0-9a-f]{40} # v[0-9]' || true)
[ -z "$unpinned" ] || fail "actions not pinned by commit SHA with a tag comment: $unpinned"
lint="$work/lint"; mkdir -p "$lint/.github/workflows"
git -C "$lint" init -q
cp action.yml "$lint/"
cp .github/workflows/*.yml "$lint/.github/workflows/"
# Every workflow in docs/ci.md is meant to be copied as is: lint it too.
"$py" - docs/ci.md "$lint/.github/workflows" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if re.search(r"^jobs:", b, re.M)]
for i, b in enumerate(blocks):
    open(f"{sys.argv[2]}/docs-ci-{i + 1}.yml", "w").write(b)
print(f"docs/ci.md: {len(blocks)} workflow(s)")
PY
# A workflow that sets every input of the action, so actionlint checks action.yml's interface.
"$py" - action.yml "$lint/.github/workflows/action-inputs.yml" <<'PY'
import sys, yaml
action = yaml.safe_load(open(sys.argv[1]))
with_ = {k: str(v.get("default", "")) or "x" for k, v in action["inputs"].items()}
wf = {"name": "action-inputs", "on": "push", "permissions": {"contents": "read"},
      "jobs": {"a": {"runs-on": "ubuntu-latest", "steps": [
          {"uses": "actions/checkout@v5"}, {"id": "pm", "uses": "./", "with": with_},
          {"run": "echo \"$CODE\"", "env": {"CODE": "${{ steps.pm.outputs.exit-code }}"}}]}}}
yaml.safe_dump(wf, open(sys.argv[2], "w"), sort_keys=False)
PY
(cd "$lint" && actionlint -no-color) || fail "actionlint"
# actionlint shellchecks workflow run: steps; the action's run: scripts get it here.
"$py" - action.yml "$work/action-scripts" <<'PY'
import os, sys, yaml
os.makedirs(sys.argv[2], exist_ok=True)
for i, s in enumerate(yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]):
    if "run" in s:
        open(os.path.join(sys.argv[2], f"step-{i + 1}.sh"), "w").write("#!/usr/bin/env bash\n" + s["run"])
PY
shellcheck -s bash "$work"/action-scripts/*.sh || fail "shellcheck on action.yml run: scripts"

if [ "$failures" -gt 0 ]; then
  echo "validate-reports: $failures problem(s)"
  exit 1
fi
echo "validate-reports: ${#sarifs[@]} SARIF and ${#junits[@]} JUnit files valid; workflows and action.yml lint clean; action smoke test passed"
