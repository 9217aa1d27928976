#!/usr/bin/env bash
# README's test command: installs dependencies, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/builddir.sh

bash scripts/deps.sh
bash scripts/build.sh
set +e
meson test -C "$BUILD_DIR" --print-errorlogs --num-processes 2 "$@"
rc=$?
set -e
/usr/bin/python3 - "$BUILD_DIR"/meson-logs/testlog.json <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    key = {"OK": "OK", "SKIP": "SKIP", "EXPECTEDFAIL": "OK"}.get(r, "FAIL")
    counts[key] += 1
print(f"{counts['OK']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
PY
exit $rc
