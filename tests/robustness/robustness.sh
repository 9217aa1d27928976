#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# robustness.sh DIR [DEVICE] [JOBS] - damaged streams through avhwdec on a device
#
# Every file in DIR (raw H.264/H.265/VP9 streams or IVF, damaged on purpose:
# overwritten bytes, truncations, flipped header bits) goes through
#   filesrc ! parsebin ! avhwdec device=DEVICE fallback=B ! avhwdownload ! fakesink
# for B = false (the hardware decoder alone) and true (FALLBACKS picks), each
# under a 20 s timeout.
# A clean EOS or an ERROR message is what bad input may give; a signal (crash),
# a timeout (hang) or a GLib CRITICAL is a finding. Prints a table of outcomes and
# each finding's command. Exit 0 when there is no finding. Needs gst-launch-1.0 with
# the elements on its path (run-on-gpu.sh stage `robustness` and the Meson test
# robustness/cpu set that up).
set -u
DIR=${1:?usage: robustness.sh DIR [DEVICE] [JOBS]}
DEVICE=${2:-cuda:0}
JOBS=${3:-8}
FALLBACKS=${FALLBACKS:-false true}
LOG=${ROBUST_LOGS:-/tmp/robustness}
rm -rf "$LOG"; mkdir -p "$LOG"

one() {
    local f=$1 fb=$2 out rc verdict
    out="$LOG/$(basename "$f").fallback-$fb.log"
    timeout -k 5 20 gst-launch-1.0 -q filesrc location="$f" ! parsebin \
        ! avhwdec device="$DEVICE" fallback="$fb" ! avhwdownload ! fakesink > "$out" 2>&1
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then verdict=HANG
    elif [ "$rc" -ge 128 ]; then verdict=CRASH
    elif grep -q "CRITICAL" "$out"; then verdict=CRITICAL
    elif [ "$rc" -eq 0 ]; then verdict=EOS
    else verdict=ERROR
    fi
    echo "$verdict fallback=$fb rc=$rc $f"
}
export -f one
export LOG DEVICE

ls "$DIR" | sed "s|^|$DIR/|" | while read -r f; do for fb in $FALLBACKS; do echo "$f $fb"; done; done |
    xargs -P "$JOBS" -n 2 bash -c 'one "$0" "$1"' > "$LOG/results.txt"

echo "# robustness: $(ls "$DIR" | wc -l) damaged stream(s) of $DIR through avhwdec device=$DEVICE"
echo
echo "| fallback | runs | EOS | ERROR | HANG | CRASH | CRITICAL |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for fb in $FALLBACKS; do
    r=$(grep " fallback=$fb " "$LOG/results.txt")
    c() { echo "$r" | grep -c "^$1 "; }
    echo "| $fb | $(echo "$r" | grep -c .) | $(c EOS) | $(c ERROR) | $(c HANG) | $(c CRASH) | $(c CRITICAL) |"
done
echo
fb1=${FALLBACKS%% *}
echo "Error messages, most frequent first (fallback=$fb1):"
grep -h "^ERROR: from element" "$LOG"/*.fallback-"$fb1".log 2>/dev/null | sed 's/^ERROR: from element [^ ]*: //' |
    sort | uniq -c | sort -rn | head -n 8
findings=$(grep -E "^(HANG|CRASH|CRITICAL) " "$LOG/results.txt")
if [ -n "$findings" ]; then
    echo
    echo "Findings:"
    echo "$findings" | while read -r v fb rc f; do
        echo "- $v $fb $rc: gst-launch-1.0 filesrc location=$f ! parsebin ! avhwdec device=$DEVICE $fb ! avhwdownload ! fakesink"
        grep -E "CRITICAL|ERROR" "$LOG/$(basename "$f").fallback-${fb#fallback=}.log" 2>/dev/null | head -n 2 | sed 's/^/    /'
    done
    exit 1
fi
echo
echo "No crash, hang or CRITICAL."
