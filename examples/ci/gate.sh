#!/usr/bin/env bash
# Gate a candidate build of your agent in CI: set up, run (or ingest), score, gate, report.
#
# Exit code: the gate's (0 pass, 1 fail or inconclusive-not-allowed, 2 bad input, 3 internal
# error), so the CI job fails exactly when the release is blocked or the tool is broken.
#
# Settings (environment):
#   CANDIDATE        build id of the candidate (e.g. the commit sha)                  required
#   SUITE            suite name or YAML path                                          required
#   RUNNER           how to run the candidate over the suite's items:
#                    python:MODULE:FUNCTION[?k=v] or http(s)://URL; leave empty and set TRACES
#                    when the agent exported its own traces
#   TRACES           OTLP trace files (or a folder) to ingest as the candidate's runs
#   BASELINE         build compared with (default: the suite's pinned baseline)
#   BASELINE_RUNNER  runner of BASELINE: run and score it (and pin it) when this home holds no
#                    scores for it yet; cache EVAL_PIPELINE_HOME between jobs to do it once
#   OUT              artefact folder (default: eval-artefacts): gate.xml (JUnit), the HTML
#                    report under report/, and each step's JSON
#   EVAL_PIPELINE    the command (default: eval-pipeline)
#   EVAL_PIPELINE_HOME  where state lives (default: ./.eval_pipeline)
set -euo pipefail

: "${CANDIDATE:?set CANDIDATE to the candidate build id}"
: "${SUITE:?set SUITE to a suite name or YAML path}"
OUT="${OUT:-eval-artefacts}"
read -r -a EP <<< "${EVAL_PIPELINE:-eval-pipeline}"
export EVAL_PIPELINE_HOME="${EVAL_PIPELINE_HOME:-$PWD/.eval_pipeline}"
mkdir -p "$OUT"

step() { echo "== $*" >&2; }
# `run` exits 1 when a run failed and `score` when a metric has error rows: the gate counts
# those as missing scores and fails, and its report says which, so go on to it; 2 and 3 stop.
past_1() { local status=$?; [ "$status" -eq 1 ] || exit "$status"; }

# 1. Set up: the baseline's scores must be in this home (run once, then cached with the home).
if [ -n "${BASELINE_RUNNER:-}" ]; then
  : "${BASELINE:?BASELINE_RUNNER needs BASELINE, the build id of the baseline}"
  if ! "${EP[@]}" summary --build "$BASELINE" > /dev/null 2>&1; then
    step "baseline $BASELINE: run and score"
    "${EP[@]}" builds register "$BASELINE" --suite "$SUITE" --runner "$BASELINE_RUNNER" \
      --pin-baseline > "$OUT/baseline-build.json"
    "${EP[@]}" run --suite "$SUITE" --build "$BASELINE" --quiet > "$OUT/baseline-runs.json"
    "${EP[@]}" score --suite "$SUITE" --build "$BASELINE" --quiet --format json \
      > "$OUT/baseline-scores.json"
  fi
fi

# 2. The candidate: run the agent over the suite's items x runs, or ingest its traces.
register=(builds register "$CANDIDATE" --suite "$SUITE")
if [ -n "${BASELINE:-}" ]; then register+=(--baseline "$BASELINE"); fi
if [ -n "${RUNNER:-}" ]; then register+=(--runner "$RUNNER"); fi
"${EP[@]}" "${register[@]}" > "$OUT/build.json"
if [ -n "${TRACES:-}" ]; then
  step "candidate $CANDIDATE: ingest $TRACES"
  "${EP[@]}" ingest "$TRACES" --build "$CANDIDATE" --quiet --output-format json \
    > "$OUT/ingest.json"
else
  step "candidate $CANDIDATE: run over $SUITE"
  "${EP[@]}" run --suite "$SUITE" --build "$CANDIDATE" --quiet > "$OUT/runs.json" || past_1
fi

# 3. Score.
step "candidate $CANDIDATE: score"
"${EP[@]}" score --suite "$SUITE" --build "$CANDIDATE" --quiet --format json > "$OUT/scores.json" \
  || past_1

# 4. Gate: JUnit for the CI's test view; the exit code decides the job.
step "candidate $CANDIDATE: gate"
gate=(gate --suite "$SUITE" --candidate "$CANDIDATE" --format junit --output "$OUT/gate.xml")
if [ -n "${BASELINE:-}" ]; then gate+=(--baseline "$BASELINE"); fi
status=0
"${EP[@]}" "${gate[@]}" || status=$?

# 5. The standalone HTML report, kept as an artefact whatever the verdict.
if [ "$status" -le 1 ]; then
  "${EP[@]}" report --build "$CANDIDATE" --out "$OUT/report" > /dev/null
  step "report: $OUT/report/$CANDIDATE.html"
fi
exit "$status"
