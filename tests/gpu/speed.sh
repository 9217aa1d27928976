#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# speed.sh - the measurements behind issue 30 items 1 and 3 and issue 32's
# long streams, from the repository root with a bundle's env.sh sourced
# (run-on-gpu.sh's "speed" stage does both):
#
#   speed.sh [--parts "startup whole vkopen vktimeline cpu threads streams vkstreams vkqueues vkprofile distinct clipphases"] [--device D] [--clips DIR]
#
#   startup  a 30-frame 1080p H.264 file (.gpu/bench/bench-1080p-h264-30f.mp4),
#            whole process, 3 times each: gst-launch-1.0 with avhwdec
#            device=D, ffmpeg -hwaccel cuda, the same two on Vulkan, and
#            gst-launch-1.0 of fakesrc
#            (GStreamer's own start); then one avhwdec run's GST_DEBUG
#            timeline: GStreamer's init, plugin loads, backends touched,
#            the device opened, the decoder opened, EOS
#   whole    DIR's 900-frame bench-1080p-{h264,h265}.mp4, whole process, best of
#            SP_WHOLE_RUNS (2) interleaved runs: avhwdec device=D against ffmpeg
#            -hwaccel cuda, and avhwdec device=vulkan against GStreamer's
#            vulkanh26Xdec and ffmpeg -hwaccel vulkan (issue 30's table)
#   vkopen   avhw-bench-vk-open --repeat 3: where opening a Vulkan device
#            goes (the driver's load, vkCreateDevice with one queue and with
#            all, FFmpeg's av_hwdevice_ctx_create with its log lines
#            time-stamped, GStreamer's gst_vulkan_device_open), then
#            gst-avhw-info's opens (the backend's own VkDevice)
#   vktimeline  DIR's 900-frame bench-1080p-{h264,h265}.mp4 through avhwdec
#            device=vulkan (threads SP_VK_THREADS, "auto"; once per
#            environment of SP_VK_ENVS, ";"-separated, "-" none: e.g.
#            "-;GST_AVHW_REUSE=0;GST_AVHW_VK_FAMILIES=each") and through
#            GStreamer's vulkanh26Xdec, one whole process each with a
#            GST_DEBUG timeline: ms from gst_init to the device made (its
#            last log line before the first frame), the
#            first and the last frame at the sink, EOS, the state NULL,
#            and the process's end (where a whole-process gap lies)
#   cpu      CPU a frame (user + system) over DIR's 900-frame
#            bench-1080p-{h264,h265}.mp4 less its 30-frame one, whole
#            processes (best of 2 each): avhwdec device=D ! fakesink, the
#            same with avhwconvertscale to 224x224 RGBP, and ffmpeg
#            -hwaccel cuda -hwaccel_output_format cuda (FFmpeg's own floor
#            under issue 31's 0.3 ms)
#   threads  profile.sh --parts time over DIR's bench-1080p-{h264,h265}.mp4
#            (SP_REPEAT, default 2, times as one raw stream): time inside
#            libavcodec and steady fps for avhwdec threads=SP_THREADS
#            ("1 2 4 8") and ffmpeg -hwaccel cuda -threads SP_FF_THREADS
#            ("auto 1 2")
#   streams  SP_K ("7") pipelines of DIR's bench-1080p-h264.mp4 at once in
#            one process (avhw-bench-decode -k K), avhwdec threads=
#            SP_STREAM_THREADS ("auto 1 2"), frames on the device; steady fps,
#            CPU ms a frame, device memory, NVDEC use (nvidia-smi dmon); then
#            SP_PROCS (none) processes of the first K each at once, their
#            steady fps summed
#   vkstreams  SP_K ("7") pipelines at once of DIR's bench-1080p-{h264,h265}.mp4
#            (SP_VK_CODECS) on device=vulkan fallback=false, one process, once
#            per avhwdec option set of SP_VK_OPTS (";"-separated, "-": none),
#            with a watchdog: a run still going after SP_VK_WAIT (60) s is
#            reported as stalled, with the Vulkan calls in progress and every
#            thread's stack (tests/bench/vk-time.c; without it gdb or
#            cuda-gdb, else each thread's kernel wait) and its GST_DEBUG log's
#            last lines in $OUT/vk, and killed
#   vkqueues one file's whole process through avhwdec device=vulkan (beside
#            vulkanh26Xdec) and SP_K streams' steady fps of each (the
#            backend's defaults: one decode queue a VkDevice, its lanes)
#   vkprofile  vk-time.c's Vulkan calls of one file through avhwdec
#            device=vulkan, the same with libplacebo to 224x224 RGBA, ffmpeg
#            -hwaccel vulkan with its libplacebo filter to the same, and
#            vulkanh26Xdec (calls taking SP_VK_TRACE_US, 20000, or more listed)
#   clipphases  the 30-frame 1080p {h264,h265} clip of .gpu/bench through
#            avhw-bench-reuse -n SP_CLIP_N (40) --loops K for K in
#            SP_CLIP_LOOPS ("1 7"), frames on the device: one loop's
#            phases (build, first frame, decode to EOS, teardown) while
#            K - 1 other loops run the same clip at once (issue 32, item 1)
#   distinct .gpu/distinct-mp4's distinct clips of each codec (make-bundle.sh;
#            other profiles, references, B-frames, one size), in turn,
#            SP_DISTINCT_PASSES (3) times over, in one process
#            (avhw-bench-reuse with all the files), on D and on vulkan: the
#            time to each clip's first frame and whether a kept decoder took
#            it (issue 30, item 5: <= 15 ms after the first pass), once per
#            SP_DISTINCT_LIMITS ("-": "- 8" adds a run with the decoder cache
#            keeping 8 decoders a device; "-" is the library's default)
# Prints Markdown.
set -u
. "$(dirname "$0")/../bench/bench-lib.sh"
DEVICE=cuda:0
CLIPS=$TOP/.gpu/prof
PARTS="startup whole vkopen vktimeline cpu threads streams vkstreams vkqueues vkprofile distinct clipphases"
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --parts) PARTS=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "speed: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# ms the command "$@" took, or "fail(N)" when it exited with N
wms() {
    local t0 rc
    t0=$(date +%s%N)
    "$@" > /dev/null 2> "$tmp/wms.err"; rc=$?
    if [ "$rc" = 0 ]; then echo $(( ($(date +%s%N) - t0) / 1000000 )); else echo "fail($rc)"; fi
}
# the smallest of the numbers given
best() { printf '%s\n' "$@" | sort -n | head -n1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "## Speed (issue 30 items 1 and 3, issue 32)"
echo
machine_info
echo

if part startup; then
    F=$TOP/.gpu/bench/bench-1080p-h264-30f.mp4
    echo "### Start-up: one 30-frame 1080p H.264 file, whole process (ms)"
    echo
    echo "| command | run 1 | run 2 | run 3 |"
    echo "| --- | ---: | ---: | ---: |"
    for what in avhwdec ffmpeg avhwdec-vulkan ffmpeg-vulkan fakesrc; do
        row=()
        for _ in 1 2 3; do
            case $what in
                avhwdec) row+=("$(wms gst-launch-1.0 -q filesrc location="$F" ! parsebin ! avhwdec device="$DEVICE" ! fakesink)") ;;
                ffmpeg) row+=("$(wms ffmpeg -v error -nostdin -hwaccel cuda -hwaccel_output_format cuda -i "$F" -f null -)") ;;
                avhwdec-vulkan) row+=("$(wms gst-launch-1.0 -q filesrc location="$F" ! parsebin ! avhwdec device=vulkan fallback=false ! fakesink)") ;;
                ffmpeg-vulkan) row+=("$(wms ffmpeg -v error -nostdin -init_hw_device vulkan=vk:0 -hwaccel vulkan -hwaccel_device vk -hwaccel_output_format vulkan -i "$F" -f null -)") ;;
                fakesrc) row+=("$(wms gst-launch-1.0 -q fakesrc num-buffers=1 ! fakesink)") ;;
            esac
        done
        echo "| $what | ${row[0]} | ${row[1]} | ${row[2]} |"
    done
    echo
    # one run each with a timeline: avhwdec's GST_DEBUG (seconds from
    # gst_init, a few ms after exec), ffmpeg's -v debug lines time-stamped
    # as they come (perl), both logs in $OUT when set
    echo "avhwdec's timeline (GST_DEBUG, seconds from gst_init) and ffmpeg's (-v debug, ms from exec):"
    echo
    t0=$(date +%s%N)
    GST_DEBUG_NO_COLOR=1 GST_DEBUG="GST_PLUGIN_LOADING:4,avhw*:5,GST_STATES:4,basesink:5" \
        gst-launch-1.0 filesrc location="$F" ! parsebin ! avhwdec device="$DEVICE" ! \
        fakesink 2> "$tmp/startup.log" > /dev/null
    t1=$(date +%s%N)
    grep -E "plugin .* loaded|CUDA device|created device context|opened (hardware|software)|reusing|get_format|hw_frames|got preroll buffer|rendering object|received EOS|EOS|completed state change to (PLAYING|NULL)|cache cleared|freed|released" \
        "$tmp/startup.log" | sed -E 's/^([0-9:.]+) +[0-9]+ +0x[0-9a-f]+ +[A-Z]+ +/\1 /' | \
        awk '/rendering object/ { if (r++) next } { print }' | cut -c1-180 | head -n 60 | sed 's/^/    /'
    echo "    process: $(( (t1 - t0) / 1000000 )) ms"
    echo
    t0=$(date +%s%N)
    ffmpeg -v debug -nostdin -hwaccel cuda -hwaccel_output_format cuda -i "$F" -f null - 2>&1 | \
        perl -MTime::HiRes=time -ne "printf \"%7.1f %s\", (time * 1e3 - $t0 / 1e6), \$_" > "$tmp/startup-ffmpeg.log"
    t1=$(date +%s%N)
    grep -iE "Loaded lib|cuInit|Opening|Format cuda chosen|Output #0|frame=|nvdec|exiting|Terminating" "$tmp/startup-ffmpeg.log" | \
        awk '/frame=/ { if (f++) next } { print }' | cut -c1-160 | head -n 30 | sed 's/^/    /'
    tail -n 2 "$tmp/startup-ffmpeg.log" | cut -c1-160 | sed 's/^/    /'
    echo "    process: $(( (t1 - t0) / 1000000 )) ms"
    if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
        cp "$tmp/startup.log" "$OUT/startup-avhwdec.log"; cp "$tmp/startup-ffmpeg.log" "$OUT/startup-ffmpeg.log"
    fi
    echo
fi

if part whole; then
    echo "### One 1080p file, whole process (ms; best of ${SP_WHOLE_RUNS:-2} interleaved runs)"
    echo
    echo "| clip | avhwdec $DEVICE | ffmpeg cuda | ratio | avhwdec vulkan | GStreamer's vulkan decoder | ffmpeg vulkan |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for c in h264 h265; do
        F=$CLIPS/bench-1080p-$c.mp4
        [ -f "$F" ] || continue
        vkdec=vulkan${c}dec
        has_element "$vkdec" || vkdec=""
        declare -A r=()
        for _ in $(seq "${SP_WHOLE_RUNS:-2}"); do
            r[ac]+=" $(wms gst-launch-1.0 -q filesrc location="$F" ! parsebin ! avhwdec device="$DEVICE" ! fakesink)"
            r[fc]+=" $(wms ffmpeg -v error -nostdin -hwaccel cuda -hwaccel_output_format cuda -i "$F" -f null -)"
            r[av]+=" $(wms gst-launch-1.0 -q filesrc location="$F" ! parsebin ! avhwdec device=vulkan fallback=false ! fakesink)"
            [ -n "$vkdec" ] && r[gv]+=" $(wms gst-launch-1.0 -q filesrc location="$F" ! parsebin ! "$vkdec" ! fakesink)"
            r[fv]+=" $(wms ffmpeg -v error -nostdin -init_hw_device vulkan=vk:0 -hwaccel vulkan -hwaccel_device vk \
                -hwaccel_output_format vulkan -i "$F" -f null -)"
        done
        ac=$(best ${r[ac]}); fc=$(best ${r[fc]})
        ratio=$(awk -v a="$ac" -v f="$fc" 'BEGIN { if (a + 0 > 0 && f + 0 > 0) printf "%.2fx", f / a; else print "-" }')
        echo "| $c $(clip_frames "$F") frames | $ac | $fc | $ratio | $(best ${r[av]}) | ${vkdec:-none} $(best ${r[gv]:-}) | $(best ${r[fv]}) |"
        unset r
    done
    echo
    echo "(ratio: ffmpeg's time over avhwdec's, as issue 30 counts it)"
    echo
fi

if part vkopen; then
    if [ -x "$BENCH_BIN/avhw-bench-vk-open" ]; then
        "$BENCH_BIN/avhw-bench-vk-open" --repeat 3
        echo "vk-open exit $?"
        echo
        echo "gst-avhw-info, each device opened as an element would:"
        echo
        GST_DEBUG_NO_COLOR=1 GST_DEBUG="avhwvulkan:4,avhwbackend:4" gst-avhw-info 2>&1 | \
            grep -E "made VkDevice|created device context|opened in|cannot open" | \
            sed -E 's/^[0-9:.]+ +[0-9]+ +0x[0-9a-f]+ +[A-Z]+ +//' | cut -c1-220 | sed 's/^/    /'
    else
        echo "SKIP vkopen: avhw-bench-vk-open not built (no Vulkan headers)"
    fi
    echo
fi

# vk_timeline LABEL ENV PIPELINE...: one gst-launch-1.0 of PIPELINE with a
# GST_DEBUG timeline, as a table row (ms from gst_init; process: from exec;
# its open: the backend's own account of the device's creation); ENV is a
# space-separated list of VAR=VALUE for the process, or "-"
vk_timeline() {
    local label=$1 envs=$2 t0 t1
    shift 2
    [ "$envs" = - ] && envs=""
    t0=$(date +%s%N)
    # shellcheck disable=SC2086 # ENV is a list of words
    env $envs GST_DEBUG_NO_COLOR=1 GST_DEBUG="GST_STATES:4,GST_PLUGIN_LOADING:4,basesink:5,avhw*:4,vulkandevice:5" \
        gst-launch-1.0 "$@" > /dev/null 2> "$tmp/vkt.log"
    t1=$(date +%s%N)
    awk -v label="$label" -v proc=$(( (t1 - t0) / 1000000 )) '
        function ms(t,  a) { split(t, a, ":"); return (a[1] * 3600 + a[2] * 60 + a[3]) * 1000 }
        /created device context/ && open == "" { for (i = 1; i < NF; i++) if ($i == "in") open = $(i + 1) }
        /created device context| vulkandevice / { if (first == "") dev = ms($1) }
        /rendering object/ { if (first == "") first = ms($1); last = ms($1); n++ }
        /Now posting EOS/ { if (eos == "") eos = ms($1) }
        /completed state change to NULL/ { nul = ms($1) }
        END { printf "| %s | %s | %s | %.0f | %.0f | %d | %s | %.0f | %d |\n", label, (dev == "" ? "-" : sprintf("%.0f", dev)),
              (open == "" ? "-" : sprintf("%.0f", open)), first, last, n, (eos == "" ? "-" : sprintf("%.0f", eos)), nul, proc }' "$tmp/vkt.log"
    [ -n "${OUT:-}" ] && [ -d "$OUT" ] && cp "$tmp/vkt.log" "$OUT/vktimeline-$(echo "$label" | tr " =" "__").log"
}

if part vktimeline; then
    echo "### One 1080p file on Vulkan, whole process: a timeline (ms from gst_init)"
    echo
    echo "| run | device made | its open (ms) | first frame | last frame | frames | EOS | NULL | process |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    IFS=';' read -r -a vk_envs <<< "${SP_VK_ENVS:--}"
    for c in h264 h265; do
        F=$CLIPS/bench-1080p-$c.mp4
        [ -f "$F" ] || continue
        for e in "${vk_envs[@]}"; do
            for t in ${SP_VK_THREADS:-auto}; do
                opt=""; [ "$t" = auto ] || opt="threads=$t"
                label="$c avhwdec threads=$t"; [ "$e" = - ] || label+=" $e"
                vk_timeline "$label" "$e" filesrc location="$F" ! parsebin ! avhwdec device=vulkan fallback=false $opt ! fakesink
            done
        done
        has_element "vulkan${c}dec" && vk_timeline "$c vulkan${c}dec" - filesrc location="$F" ! parsebin ! "vulkan${c}dec" ! fakesink
    done
    echo
fi

# cpu_ms CMD...: CPU ms (user + system) the command and its children used,
# or "fail"; the command's output is dropped
cpu_ms() {
    perl -e 'open(my $out, ">&", \*STDOUT); open(STDOUT, ">", "/dev/null");
        system(@ARGV) == 0 or exit 1; my @t = times; printf $out "%.0f\n", ($t[2] + $t[3]) * 1000' \
        "$@" 2> /dev/null || echo fail
}

# cpu_best HOW FILE: the lesser CPU ms of two runs of FILE through HOW (dec:
# avhwdec, rgb: avhwdec to 224x224 RGBP, ff: ffmpeg), or "fail"
cpu_best() {
    local v=()
    for _ in 1 2; do
        case $1 in
            dec) v+=("$(cpu_ms gst-launch-1.0 -q filesrc location="$2" ! parsebin ! avhwdec device="$DEVICE" ! fakesink)") ;;
            rgb) v+=("$(cpu_ms gst-launch-1.0 -q filesrc location="$2" ! parsebin ! avhwdec device="$DEVICE" ! \
                avhwconvertscale ! "video/x-raw(memory:AVHWCUDA),format=RGBP,width=224,height=224" ! fakesink)") ;;
            ff) v+=("$(cpu_ms ffmpeg -v error -nostdin -hwaccel cuda -hwaccel_output_format cuda -i "$2" -f null -)") ;;
        esac
    done
    printf '%s\n' "${v[@]}" | grep -E '^[0-9]+$' | sort -n | head -n1 | grep . || echo fail
}

if part cpu; then
    echo "### CPU a frame, whole processes: (CPU of 900 frames - CPU of 30) / 870, ms"
    echo
    echo "| clip | avhwdec $DEVICE ! fakesink | ... ! avhwconvertscale 224x224 RGBP | ffmpeg -hwaccel cuda |"
    echo "| --- | ---: | ---: | ---: |"
    for c in h264 h265; do
        L=$CLIPS/bench-1080p-$c.mp4; S=$CLIPS/bench-1080p-$c-30f.mp4
        [ -f "$L" ] && [ -f "$S" ] || continue
        row="| $c |"
        for how in dec rgb ff; do
            l=$(cpu_best "$how" "$L"); s=$(cpu_best "$how" "$S")
            row+=" $(awk -v l="$l" -v s="$s" 'BEGIN { if (l + 0 > 0 && s + 0 > 0) printf "%.3f (%s / %s)", (l - s) / 870, l, s; else printf "fail (%s / %s)", l, s }') |"
        done
        echo "$row"
    done
    echo
fi

if part threads; then
    PROFILE_RUNS=1 PROFILE_THREADS=${SP_THREADS:-1 2 4 8} \
        PROFILE_FF_THREADS=${SP_FF_THREADS:-auto 1 2} \
        bash "$TOP/tests/gpu/profile.sh" --device "$DEVICE" --clips "$CLIPS" \
        --repeat "${SP_REPEAT:-2}" --parts time
    echo
fi

if part streams; then
    F=$CLIPS/bench-1080p-h264.mp4
    echo "### ${SP_K:-7} pipelines at once, $(basename "$F") ($(clip_frames "$F") frames each), frames on the device"
    echo
    echo "| K | threads | steady fps | CPU ms/frame | peak MiB | NVDEC use mean / max % |"
    echo "| ---: | --- | ---: | ---: | ---: | --- |"
    for k in ${SP_K:-7}; do
        for t in ${SP_STREAM_THREADS:-auto 1 2}; do
            opt=""; [ "$t" = auto ] || opt="threads=$t"
            nvidia-smi dmon -s u -d 1 > "$tmp/dmon" 2>/dev/null & dm=$!
            run_decode "k=$k threads=$t" -k "$k" -- "filesrc location=$F ! parsebin ! \
                avhwdec device=$DEVICE $opt ! fakesink name=sink sync=false" > /dev/null
            kill "$dm" 2>/dev/null; wait "$dm" 2>/dev/null
            use=$(awk '!/^#/ && NF >= 5 { s += $5; n++; if ($5 > m) m = $5 } END { if (n) printf "%.0f / %d", s / n, m; else print "-" }' "$tmp/dmon")
            echo "| $k | $t | $(result_get steady_fps) | $(result_get cpu_ms_per_frame) | $(result_get peak_proc_mib) | $use |"
            echo "$LAST_RESULT" >&2
        done
    done
    echo
    # SP_PROCS processes of SP_K pipelines each at once: does a second CUDA
    # context (process) add throughput that more pipelines in one do not?
    for p in ${SP_PROCS:-}; do
        k=${SP_K%% *}
        for i in $(seq "$p"); do
            "$BENCH_BIN/avhw-bench-decode" --no-memory --label "p$i" -k "$k" -- "filesrc location=$F ! parsebin ! \
                avhwdec device=$DEVICE ! fakesink name=sink sync=false" > /dev/null 2> "$tmp/proc$i" &
        done
        wait
        sum=$(cat "$tmp"/proc* | sed -n 's/.* steady_fps=\([0-9.]*\) .*/\1/p' | awk '{ s += $1 } END { printf "%.1f", s }')
        echo "- $p processes of $k pipelines at once: steady fps summed $sum ($(cat "$tmp"/proc* | sed -n 's/.* steady_fps=\([0-9.]*\) .*/\1/p' | tr '\n' ' '))"
        rm -f "$tmp"/proc*
    done
    echo
fi

# vk_watch LABEL K OPTS FILE: K pipelines of FILE at once through avhwdec
# device=vulkan fallback=false OPTS in one avhw-bench-decode, with
# tests/bench/vk-time.c preloaded (VK_TIME_SO, else the bundle's), watched: a run still going
# after SP_VK_WAIT (60) s is reported as stalled, with the Vulkan calls in
# progress and every thread's stack (vk-time's SIGUSR2; without vk-time gdb,
# else cuda-gdb, else each thread's kernel wait), and killed. Logs in $OUT.
vk_watch() {
    local label=$1 k=$2 opts=$3 F=$4 log=$tmp/vkw-$1.log pid waited dbg pre=${VK_TIME_SO:-}
    [ -z "$pre" ] && [ -f "$BENCH_BIN/libavhw-vk-time.so" ] && pre=$BENCH_BIN/libavhw-vk-time.so
    LD_PRELOAD=$pre VK_TIME_LABEL=$label GST_DEBUG_NO_COLOR=1 GST_DEBUG="avhw*:4,GST_STATES:3" \
        "$BENCH_BIN/avhw-bench-decode" --no-memory --timeout "${SP_VK_WAIT:-60}" --label "$label" -k "$k" -- \
        "filesrc location=$F ! parsebin ! avhwdec device=vulkan fallback=false $opts ! fakesink name=sink sync=false" \
        > /dev/null 2> "$log" &
    pid=$!
    waited=0
    while kill -0 "$pid" 2> /dev/null && [ "$waited" -lt $(( ${SP_VK_WAIT:-60} + 15 )) ]; do
        sleep 1; waited=$((waited + 1))
    done
    if kill -0 "$pid" 2> /dev/null; then
        echo "- $label: **stalled**, still running after ${waited} s"
        if [ -n "$pre" ]; then
            # vk-time: the Vulkan calls in progress, then every thread's stack
            kill -USR2 "$pid"; sleep 4
            grep -E "^VK-PENDING" "$log" | head -n 40 | sed 's/^/    /'
            sed -n '/^VK-STACK tid/,/^VK-STACK end/p' "$log" > "$tmp/stacks-$label.txt"
            echo "    $(grep -c '^VK-STACK tid' "$tmp/stacks-$label.txt") thread stacks in \$OUT/vk/$label-stacks.txt.gz"
        else
            dbg=$(command -v gdb || command -v cuda-gdb || ls /usr/local/cuda*/bin/cuda-gdb 2> /dev/null | head -n 1)
            if [ -n "$dbg" ]; then
                timeout -k 5 60 "$dbg" -p "$pid" -batch -ex "info sharedlibrary" -ex "thread apply all bt 24" \
                    > "$tmp/stacks-$label.txt" 2>&1
            else
                for t in /proc/"$pid"/task/*; do
                    echo "$(cat "$t/comm") $(cat "$t/wchan" 2> /dev/null)"
                done | sort | uniq -c > "$tmp/stacks-$label.txt"
            fi
            head -c 4000 "$tmp/stacks-$label.txt" | sed 's/^/    /'
        fi
        kill -9 "$pid"
    fi
    wait "$pid"
    echo "- $label: exit $?; $(grep -E "^RESULT" "$log" | grep -oE "steady_fps=[0-9.]+|failures=[0-9]+" | tr '\n' ' ')"
    grep -E "stream [0-9]+:|ERROR" "$log" | head -n 8 | cut -c1-200 | sed 's/^/    /'
    if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
        mkdir -p "$OUT/vk"
        tail -n 3000 "$log" | gzip > "$OUT/vk/$label-log-tail.txt.gz"
        [ -f "$tmp/stacks-$label.txt" ] && gzip -c "$tmp/stacks-$label.txt" > "$OUT/vk/$label-stacks.txt.gz"
    fi
}

if part vkstreams; then
    echo "### ${SP_K:-7} pipelines at once on vulkan, one process, watched"
    echo
    k=${SP_K:-7}; k=${k%% *}
    for c in ${SP_VK_CODECS:-h264 h265}; do
        F=$CLIPS/bench-1080p-$c.mp4
        [ -f "$F" ] || continue
        # SP_VK_OPTS: avhwdec options per run, ";"-separated, "-" for none
        IFS=";" read -r -a optsets <<< "${SP_VK_OPTS:--}"
        for o in "${optsets[@]}"; do
            [ "$o" = - ] && o=""
            vk_watch "vulkan-$c-k$k$(echo "$o" | tr -d ' =' | sed 's/^./-&/')" "$k" "$o" "$F"
        done
    done
    echo
fi

# Vulkan: one file's whole process and SP_K streams' steady rate, avhwdec
# (the backend's defaults) beside GStreamer's vulkanh26Xdec
# k_streams_fps LABEL K FILE DECODER [VAR=value...]: the steady fps of K
# pipelines of FILE through DECODER at once in one avhw-bench-decode (with
# the variables set), empty when it failed or ran past SP_VK_WAIT (60) s
k_streams_fps() {
    local label=$1 k=$2 F=$3 dec=$4
    shift 4
    env "$@" timeout $(( ${SP_VK_WAIT:-60} + 10 )) "$BENCH_BIN/avhw-bench-decode" --no-memory \
        --timeout "${SP_VK_WAIT:-60}" --label "$label" -k "$k" -- \
        "filesrc location=$F ! parsebin ! $dec ! fakesink name=sink sync=false" \
        2>&1 > /dev/null | sed -n 's/^RESULT.* steady_fps=\([0-9.]*\).*/\1/p'
}

if part vkqueues; then
    k=${SP_K:-7}; k=${k%% *}
    echo "### Vulkan: one 1080p file's whole process (ms, best of ${SP_WHOLE_RUNS:-2}) and $k streams in one process"
    echo
    echo "| codec | decoder | whole ms | $k streams steady fps |"
    echo "| --- | --- | ---: | ---: |"
    for c in ${SP_VK_CODECS:-h264 h265}; do
        F=$CLIPS/bench-1080p-$c.mp4
        [ -f "$F" ] || continue
        vkdec=vulkan${c}dec
        has_element "$vkdec" || vkdec=""
        a=() g=()
        for _ in $(seq "${SP_WHOLE_RUNS:-2}"); do
            a+=("$(wms gst-launch-1.0 -q filesrc location="$F" ! parsebin ! \
                avhwdec device=vulkan fallback=false ! fakesink)")
            [ -n "$vkdec" ] && g+=("$(wms gst-launch-1.0 -q filesrc location="$F" ! parsebin ! "$vkdec" ! fakesink)")
        done
        fps=$(k_streams_fps "avhw-$c-k$k" "$k" "$F" "avhwdec device=vulkan fallback=false")
        echo "| $c | avhwdec device=vulkan | $(best "${a[@]}") | ${fps:-fail or stall} |"
        if [ -n "$vkdec" ]; then
            fps=$(k_streams_fps "$vkdec-k$k" "$k" "$F" "$vkdec")
            echo "| $c | $vkdec, GStreamer's | $(best "${g[@]:-}") | ${fps:-fail or stall} |"
        fi
    done
    echo
fi

# Where a Vulkan process waits: vk-time.c preloaded into one 900-frame file
# through avhwdec device=vulkan, the same with libplacebo to 224x224 RGBA,
# and GStreamer's vulkanh26Xdec; its rows (calls, total and max ms per
# Vulkan function) and the whole process
if part vkprofile; then
    echo "### Vulkan calls of one 1080p file (tests/bench/vk-time.c)"
    echo
    pre=$BENCH_BIN/libavhw-vk-time.so
    if [ ! -f "$pre" ]; then
        echo "SKIP vkprofile: no libavhw-vk-time.so"
    else
        for c in ${SP_VK_CODECS:-h264 h265}; do
            F=$CLIPS/bench-1080p-$c.mp4
            [ -f "$F" ] || continue
            for what in decode placebo ffplacebo gst; do
                case $what in
                    ffplacebo) p=() ;;
                    decode) p=(filesrc location="$F" ! parsebin ! avhwdec device=vulkan fallback=false ! fakesink) ;;
                    placebo) p=(filesrc location="$F" ! parsebin ! avhwdec device=vulkan fallback=false ! avhwconvertscale
                        ! "video/x-raw(memory:AVHWVulkan),format=RGBA,width=224,height=224" ! fakesink) ;;
                    gst) has_element "vulkan${c}dec" || continue
                        p=(filesrc location="$F" ! parsebin ! "vulkan${c}dec" ! fakesink) ;;
                esac
                t0=$(date +%s%N)
                if [ "$what" = ffplacebo ]; then
                    # FFmpeg's own decode and libplacebo filter: the anchor
                    LD_PRELOAD=$pre VK_TIME_LABEL=$c-$what VK_TIME_TRACE=${SP_VK_TRACE_US:-20000} \
                        ffmpeg -v error -nostdin -init_hw_device vulkan=vk:0 -hwaccel vulkan -hwaccel_device vk \
                        -hwaccel_output_format vulkan -i "$F" -vf libplacebo=w=224:h=224:format=rgba \
                        -f null - > /dev/null 2> "$tmp/vkp.log"
                else
                    LD_PRELOAD=$pre VK_TIME_LABEL=$c-$what VK_TIME_TRACE=${SP_VK_TRACE_US:-20000} \
                        gst-launch-1.0 -q "${p[@]}" > /dev/null 2> "$tmp/vkp.log"
                fi
                echo "#### $c $what: exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
                echo
                grep -E "^VK-TIME" "$tmp/vkp.log" | sed -E 's/label=[^ ]+ process=[^ ]+ //' | sort -t= -k4 -g -r | head -n 24 | sed 's/^/    /'
                grep -E "^VK-CALL" "$tmp/vkp.log" | head -n 30 | sed 's/^/    /'
                echo
                if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
                    mkdir -p "$OUT/vk"
                    gzip -c "$tmp/vkp.log" > "$OUT/vk/profile-$c-$what.log.gz"
                fi
            done
        done
    fi
    echo
fi

# reuse_run ARGS...: avhw-bench-reuse ARGS, its output in $tmp/reuse.md
# (and on stderr), its errors in $tmp/reuse.err; sets RC (its exit) and
# CACHE ("hits / misses" of the decoder cache)
reuse_run() {
    "$BENCH_BIN/avhw-bench-reuse" "$@" > "$tmp/reuse.md" 2> "$tmp/reuse.err"
    RC=$?
    cat "$tmp/reuse.md" >&2
    CACHE=$(sed -n 's/.*decoder cache: \([0-9]*\) hit(s), \([0-9]*\) miss(es).*/\1 \/ \2/p' "$tmp/reuse.md")
}

if part clipphases; then
    echo "### One 30-frame 1080p clip's phases while K loops of such clips run at once (ms, median of pipelines 2..N; frames on the device)"
    echo
    echo "| codec | K | build | time to first frame | first frame to EOS | teardown | one loop clips/s | all K loops clips/s | decoder cache hits / misses |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    for c in h264 h265; do
        F=$TOP/.gpu/bench/bench-1080p-$c-30f.mp4
        [ -f "$F" ] || { echo "| $c | - | no $F | | | | | | |"; continue; }
        for k in ${SP_CLIP_LOOPS:-1 7}; do
            reuse_run -n "${SP_CLIP_N:-40}" -k "$k" -d "$DEVICE" \
                --sink "fakesink name=sink sync=false" --label "phases-$c-k$k" "$F"
            r=$(grep '^RESULT .* build_median_ms' "$tmp/reuse.md")
            g() { echo "$r" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
            all=$(sed -n 's/.*all [0-9]* loops ~\([0-9.]*\) clips\/s.*/\1/p' "$tmp/reuse.md")
            [ "$RC" = 0 ] || CACHE="fail($RC): $(tail -n 1 "$tmp/reuse.err")"
            echo "| $c | $k | $(g build_median_ms) | $(g ttff_median_ms) | $(g decode_median_ms) | $(g teardown_median_ms) | $(g clips_per_s) | ${all:-$(g clips_per_s)} | ${CACHE:--} |"
        done
    done
    echo
fi

if part distinct; then
    echo "### Distinct clips on kept decoders, $((${SP_DISTINCT_PASSES:-3})) passes in one process"
    echo
    echo "| codec | device | clips | decoders kept at most | TTFF after the first pass, median / max ms | decoder cache hits / misses |"
    echo "| --- | --- | ---: | --- | --- | --- |"
    for c in h264 h265; do
        set -- "$TOP"/.gpu/distinct-mp4/$c/*.mp4
        [ -f "$1" ] || { echo "| $c | - | 0 | - | no .gpu/distinct-mp4/$c (make-bundle.sh) | - |"; continue; }
        for d in "$DEVICE" vulkan; do
            # "-": the library's default limit; a number: --decoders-limit
            for lim in ${SP_DISTINCT_LIMITS:--}; do
                lopt=()
                [ "$lim" = - ] || lopt=(--decoders-limit "$lim")
                reuse_run -n $(($# * ${SP_DISTINCT_PASSES:-3})) -d "$d" "${lopt[@]}" \
                    --label "distinct-$c-$d" "$@"
                med=$(sed -n 's/.* ttff_later_median_ms=\([0-9.]*\).*/\1/p' "$tmp/reuse.md")
                max=$(sed -n 's/.* ttff_later_max_ms=\([0-9.]*\).*/\1/p' "$tmp/reuse.md")
                [ "$RC" = 0 ] || med="fail($RC): $(tail -n 1 "$tmp/reuse.err")"
                echo "| $c | $d | $# | ${lim/-/default} | ${med:--} / ${max:--} | ${CACHE:--} |"
            done
        done
    done
    echo
fi
