#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-on-gpu.sh - what runs on the NVIDIA GPU test machine, from the repository
# root, with .gpu/ carried (tests/gpu/make-bundle.sh makes it):
#
#   bash tests/gpu/run-on-gpu.sh [STAGE...]        (device tool: carry [".gpu"])
#
# STAGEs, in this order (default: all): info check conformance bench
#   info         nvidia-smi, gst-avhw-info, the elements and NVIDIA features seen
#   check        the tests/check programs on the real GPU: libs_cuda,
#                libs_contract (AVHW_BACKEND=cuda, vulkan, opencl), elements_context,
#                elements_updown, elements_avhwdec, elements_foreign, elements_autoplug,
#                libs_registry, libs_cache(-reuse-off), elements_convertscale
#                (AVHW_TEST_DEVICE=cuda: scale_cuda; =vulkan: scale_vulkan),
#                elements_convertscale_cuda (cuda-convert, the CUDA kernel)
#   conformance  tests/gpu/conformance-gst.sh over .gpu/media/MANIFEST.tsv through
#                NVDEC (avhwdec device=cuda:0 fallback=false), then fallback=true
#                for every stream that did not pass
#   zerocopy     (not in the default list) avhwdec device=cuda:0 (or DEVICE when it is
#                cuda:N) ! video/x-raw(memory:CUDAMemory) ! cudadownload over ZC_CLIP
#                (default .gpu/bench/bench-1080p-h264.mp4) with GST_DEBUG=avhwcudamemory:5:
#                frames wrapped (no copy) and copied into CUDAMemory, and the MD5 of
#                the NV12 frames (videocodectestsink) against avhwdec ! avhwdownload
#                and ffmpeg's software decoder; one VERDICT line, also in
#                $OUT/zerocopy.txt (frames: the clip's packets, ffprobe). SKIP without
#                cudadownload (nvcodec registers nothing without an NVIDIA GPU)
#   transcode    (not in the default list) tests/gpu/transcode.sh over TC_CLIP (default
#                .gpu/bench/bench-1080p-h264-30f.mp4): avhwdec device=DEVICE ! avhwenc
#                (NVENC, else libx264) into mp4, mkv and ts; frames and PTS checked
#   bench        tests/bench/run-all.sh --device cuda:0 (reuse, throughput, scaling)
#   reuseprofile (not in the default list) many short clips (issue 17): reuse.sh
#                (-n REUSE_N, default 30) on the 30-frame H.264 and H.265 clips,
#                with the per-phase medians and one ffmpeg process per clip beside;
#                then a GST_DEBUG timeline (avhwdec, avhw-ffmpeg, avhwcache:5) of
#                three pipelines in one process, in $OUT/reuse-timeline.log; then
#                the corpus through NVDEC in ONE process (conformance-gst.sh
#                --one-process, shuffled, twice over, fallback=false) and the generated
#                clips the same way after their equal-coded-size, different-crop pairs
#                (fallback=true), each bit-exact, with the decoder cache's hits
#   (check: CHECK_ONLY="NAME ..." runs only those check programs)
#   reusemany    (not in the default list) REUSE_MANY_N (1000) pipelines of the 30-frame
#                H.264 clip in one process, reuse on (avhw-bench-reuse): device memory
#                after teardown from pipeline 2 to N, in $OUT/reuse-many.md
#   distinct     (not in the default list) tests/gpu/distinct.sh (issue 30): the
#                distinct clips concatenated through ffmpeg -hwaccel vulkan
#                -threads 2 and 1, each run against FFmpeg's software MD5; then
#                each clip as byte-stream through avhwdec on vulkan and cuda:0
#                in one process per codec, 100 passes; $OUT/distinct.md
#   diag         (not in the default list) for each stream of DIAG_FILES (manifest
#                paths): FFmpeg's own NVDEC output MD5 (ffmpeg -hwaccel cuda) against
#                the manifest, FFmpeg's verbose reasons, and avhwdec's debug log
#   profile      (not in the default list) tests/gpu/profile.sh: CUDA context
#                memory, time inside libavcodec for avhwdec and ffmpeg, device
#                memory by extra-frames (PROFILE_PARTS picks parts)
#   speed        (not in the default list) tests/gpu/speed.sh (issues 30, 32): opening
#                a Vulkan device step by step, time inside libavcodec by avhwdec
#                and ffmpeg threads, K long streams by threads, a Vulkan
#                process's timeline, CPU a frame, K Vulkan streams watched for a
#                stall (SP_PARTS picks
#                parts; SP_CLIPS its clips, default .gpu/prof: make-bundle.sh's
#                900-frame 1080p clips);
#                $OUT/speed.md
#   robustness   (not in the default list) tests/robustness/robustness.sh over ROBUST_DIR
#                (default .gpu/fuzz): damaged streams through avhwdec with and
#                without fallback; crashes, hangs and CRITICALs are findings
#   parallel     (not in the default list) conformance with avhwdec parallel=4,
#                then tests/bench/parallel.sh --check: one
#                1080p file with avhwdec parallel=PAR_VALUES ("1 2 4 7"), bit-exact
#                against parallel=1, fps, TTFF, device memory, one ffmpeg beside
#                (clips: make-bundle.sh with PARALLEL_CLIPS=1; PARALLEL_FRAMES;
#                PAR_CODECS, PAR_GOPS; PAR_CONFORMANCE=0 skips the corpus;
#                PAR_REPORT=1 adds avhwdec's account of where the time went)
#   convertscale (not in the default list) tests/bench/convertscale.sh: avhwdec !
#                avhwconvertscale to 224x224 on the device (NV12, RGBx, + download)
#                against avhwdownload ! videoconvertscale and ffmpeg -vf scale_cuda;
#                fps and CPU ms per frame, in $OUT/convertscale.md
#   cudaconvert  (not in the default list) tests/gpu/cuda-convert.sh (issue 31):
#                1080p H.264 and H.265 through NVDEC to
#                224x224 RGBP with cuda-convert: PSNR against videoconvertscale,
#                fps against decode only; CC_DEVICES="cuda:0 vulkan" adds the
#                same through Vulkan and libplacebo; CC_PARTS="quality" no speed rows,
#                CC_CLIPS another clip folder; $OUT/cuda-convert.md
#   manyclips    (not in the default list) tests/gpu/many-clips.sh (issue 32): 30-frame
#                1080p H.264 and H.265 clips through docs/examples/many-clips,
#                MC_THREADS ("1 4 7 14") pipelines at once in one process and
#                MC_PROCS ("7 14") processes, clips/s of a warm round, decoders
#                opened, NVDEC utilisation (dmon); one --check run;
#                $OUT/many-clips.md
#   longstreams  (not in the default list) tests/gpu/long-streams.sh (issue 32): LS_K
#                ("7 14") long 1080p streams at once in one process (the first
#                LS_REPEAT (2) times) and LS_PROCS (7) processes of one, on
#                .gpu/prof's 900-frame clips (SPEED_CLIPS=1 make-bundle.sh):
#                steady fps, CPU ms a frame, peak MiB; $OUT/long-streams.md
#   parwarm      (not in the default list) tests/bench/parallel-warm.sh on
#                .gpu/bench/par-1920x1080-h264-g60-nPW_FRAMES.mp4 (900; parallel.sh
#                --make-only makes it), PW_N (3) pipelines per PW_VALUES ("1 4 7")
#                with GST_DEBUG=avhwdec:6: $OUT/parallel-warm.md and the first
#                frame's account of each pipeline, $OUT/parallel-warm-timeline.txt
#   python       (not in the default list) tests/gpu/python-on-gpu.sh: PyGObject built
#                for this machine's python3 from .gpu/pygobject-kit.tar.xz
#                (make-pygobject-kit.sh), then tests/python (gpu_frames: NVDEC frames
#                into torch.from_dlpack and CuPy, no copy, bit-exact) and
#                docs/examples/clip_batches.py (PY_TESTS: only those); $OUT/python.txt
#   nvbench      (not in the default list) GStreamer's nvh264dec/nvh265dec rows of
#                throughput.sh and scaling.sh, with ffmpeg cuda and
#                ffmpeg cuda -threads 1 beside avhwdec
#   vulkanvideo  (not in the default list) tests/gpu/vulkan-video.sh (issue 15), at
#                most VV_BUDGET_S (300) s, VV_PARTS (all) its parts, VV_CLIPS its
#                clips (.gpu/bench; .gpu/prof has 900-frame ones), one summary table, also in $OUT/vulkan-video.md: the
#                vulkan line of gst-avhw-info; the corpus through avhwdec device=vulkan
#                fallback=false ($OUT/conformance-vulkan.tsv, per-codec counts); one
#                1080p H.264 and H.265 stream through avhwdec vulkan, avhwdec cuda:0,
#                ffmpeg -hwaccel vulkan and -hwaccel cuda; 7 streams on vulkan; peak
#                device memory of one stream; avhwdec ! vulkandownload against
#                avhwdownload and ffmpeg software (MD5) and the VkDevices it made;
#                elements_concurrent CONCURRENT_REPEAT (50) times, crashes counted.
#                Needs FFmpeg >= 6.1 (the Debian 13 bundle: BUNDLES=d13 run-both.sh
#                vulkanvideo); with 5.1 it prints SKIP with the reason
# Everything printed goes to $OUT/run.log too; $OUT also gets conformance.tsv,
# bench.md, results.txt, reuse.csv, bench.png and logs.tar.gz (per-test and
# per-stream logs). Each stage is time-boxed so the whole run ends before
# DEADLINE_S (default 570) seconds; a stage cut short says so.
# Env: BENCH_RUNS (2), BENCH_ITER (20), BENCH_STREAMS ("1 2 4 7 14"), BENCH_ONLY
# (run-all.sh --only), CONF_JOBS (4), DEVICE (cuda:0), BUNDLE (.gpu/gpubundle.tar.xz:
# the tarball to unpack; tests/gpu/run-both.sh runs this once per bundle),
# BUNDLE_ROOT (/tmp: where it is unpacked), LOGS (/tmp/gpu-logs).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
T0=$(date +%s)
DEADLINE_S=${DEADLINE_S:-570}
DEVICE=${DEVICE:-cuda:0}
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
LOGS=${LOGS:-/tmp/gpu-logs}
rm -rf "$LOGS"; mkdir -p "$LOGS"
STAGES=${*:-info check conformance bench}
exec > >(tee -a "$OUT/run.log") 2>&1

left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
# budget CAP: seconds a stage may take: CAP, or what is left less 20 s for packing
budget() { local l; l=$(( $(left) - 20 )); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
stage() { echo; echo "==================== $* ($(date -u +%H:%M:%S), $(( $(date +%s) - T0 )) s in)"; }
has() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

stage "setup"
echo "command: bash tests/gpu/run-on-gpu.sh $STAGES"
grep -H . .gpu/TREE .gpu/TREE-d13 2>/dev/null; echo "working tree sent: $(git log -1 --format="%h %s" 2>/dev/null || echo "no git")"
# BUNDLE_ROOT: where the bundle is unpacked (a private folder for rehearsals
# on a shared dev machine, e.g. BUNDLE_ROOT=/tmp/$USER-gpu DEVICE=vulkan)
BUNDLE_ROOT=${BUNDLE_ROOT:-/tmp}
mkdir -p "$BUNDLE_ROOT"
BUNDLE=${BUNDLE:-.gpu/gpubundle.tar.xz}
rm -rf "$BUNDLE_ROOT/gpubundle"
tar -xJf "$BUNDLE" -C "$BUNDLE_ROOT" || { echo "cannot unpack $BUNDLE"; exit 1; }
echo "bundle: $BUNDLE in $BUNDLE_ROOT/gpubundle"
# shellcheck disable=SC1091
. "$BUNDLE_ROOT/gpubundle/env.sh"
# NVIDIA's own ICD json names libGLX_nvidia.so.0, which cannot create a Vulkan
# instance on this headless machine; one naming the EGL library can
if [ -f /usr/local/nvidia/lib64/libEGL_nvidia.so.0 ]; then
    nv_api=$(sed -n 's/.*"api_version" *: *"\([0-9.]*\)".*/\1/p' \
        /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
        2>/dev/null | head -n1)
    printf '{"file_format_version":"1.0.1","ICD":{"library_path":"/usr/local/nvidia/lib64/libEGL_nvidia.so.0","api_version":"%s"}}\n' \
        "${nv_api:-1.3}" > "$BUNDLE_ROOT/gpubundle/nvidia_egl_icd.json"
    export VK_DRIVER_FILES=$BUNDLE_ROOT/gpubundle/nvidia_egl_icd.json
    echo "VK_DRIVER_FILES=$VK_DRIVER_FILES: $(cat "$VK_DRIVER_FILES")"
fi
REG=$BUNDLE_ROOT/gpubundle/registries
mkdir -p "$REG"
export GST_REGISTRY=$REG/main.bin GST_REGISTRY_1_0=$REG/main.bin
PLUGINS=$GPUBUNDLE/plugins
ls "$PLUGINS" | grep -i avhw | tr '\n' ' '; echo
uname -a
nproc

if has info; then
    stage "info"
    nvidia-smi 2>&1 | head -n 20
    nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
    timeout 60 gst-avhw-info 2>&1; echo "gst-avhw-info exit $?"
    timeout 60 gst-inspect-1.0 avhwdec 2>&1 | sed -n '1,12p'
    echo "avhw plugin features:"; timeout 60 gst-inspect-1.0 2>/dev/null | grep -i avhw
    echo "nvcodec features: $(timeout 60 gst-inspect-1.0 nvcodec 2>/dev/null | grep -cE '^ +nv')"
    timeout 60 gst-inspect-1.0 nvcodec 2>/dev/null | grep -E '^ +nv' | head -n 30
    timeout 30 ffmpeg -hide_banner -hwaccels 2>&1 | tr '\n' ' '; echo
fi

if has check; then
    stage "check: tests/check programs on the GPU"
    CHECK_RESULTS=()
    run_check() { # name program [VAR=value...]
        local name=$1 prog=$2 b rc; shift 2
        # CHECK_ONLY="name ...": only those
        case " ${CHECK_ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
        b=$(budget 150)
        if [ "$b" -lt 20 ]; then CHECK_RESULTS+=("NOT RUN  $name (out of time)"); return; fi
        echo "---- $name: env $* $prog (limit ${b} s)"
        env GST_REGISTRY_1_0="$REG/check-$name.bin" GST_PLUGIN_SYSTEM_PATH_1_0= \
            GST_PLUGIN_PATH_1_0="$PLUGINS" CK_FORK=no CK_DEFAULT_TIMEOUT=60 \
            GST_DEBUG="${CHECK_GST_DEBUG:-*:2,avhw*:4}" "$@" \
            timeout -k 5 "$b" "$prog" > "$LOGS/check-$name.log" 2>&1
        rc=$?
        grep -E '^[0-9]+%: Checks|^SKIP|: (E|F):|: Passed|Assertion|CRITICAL|Segmentation' "$LOGS/check-$name.log" | head -n 40
        case $rc in
            0) CHECK_RESULTS+=("PASS  $name") ;;
            77) CHECK_RESULTS+=("SKIP  $name") ;;
            124|137) CHECK_RESULTS+=("FAIL  $name (timeout, ${b} s)") ;;
            *) CHECK_RESULTS+=("FAIL  $name (exit $rc)")
               echo "     last lines:"; tail -n 25 "$LOGS/check-$name.log" | sed 's/^/     /' ;;
        esac
    }
    run_check libs_cuda "$GPUBUNDLE/bin/libs_cuda"
    run_check contract-cuda "$GPUBUNDLE/bin/libs_contract" AVHW_BACKEND=cuda
    run_check contract-vulkan "$GPUBUNDLE/bin/libs_contract" AVHW_BACKEND=vulkan
    run_check contract-opencl "$GPUBUNDLE/bin/libs_contract" AVHW_BACKEND=opencl
    run_check elements_context "$GPUBUNDLE/bin/elements_context"
    run_check elements_updown "$GPUBUNDLE/bin/elements_updown"
    run_check elements_avhwdec "$GPUBUNDLE/bin/elements_avhwdec"
    [ -x "$GPUBUNDLE/bin/elements_avhwdec_parallel" ] && run_check elements_avhwdec_parallel "$GPUBUNDLE/bin/elements_avhwdec_parallel"
    [ -x "$GPUBUNDLE/bin/elements_foreign" ] && run_check elements_foreign "$GPUBUNDLE/bin/elements_foreign"
    [ -x "$GPUBUNDLE/bin/elements_autoplug" ] && run_check elements_autoplug "$GPUBUNDLE/bin/elements_autoplug"
    run_check libs_registry "$GPUBUNDLE/bin/libs_registry" AVHW_BUILT_BACKENDS=vulkan,opencl,cuda
    run_check libs_cache "$GPUBUNDLE/bin/libs_cache"
    # the formats a device's frames hold, tried one at a time (a test
    # backend on FFmpeg's vulkan device: NVIDIA's driver here)
    [ -x "$GPUBUNDLE/bin/libs_devformats" ] && run_check libs_devformats "$GPUBUNDLE/bin/libs_devformats"
    run_check libs_cache_reuse_off "$GPUBUNDLE/bin/libs_cache_reuse_off" GST_AVHW_REUSE=0
    run_check libs_cache_lanes "$GPUBUNDLE/bin/libs_cache" GST_AVHW_DEVICE_LANES=2
    # seven kept (joined) decoders at once, on one VkDevice and on the
    # backend's lanes, and on CUDA: every clip alike, no stall (runs 91-92)
    run_check manyclips_vulkan_one_device tests/gpu/many-clips-check.sh MC_DEVICE=vulkan:0 GST_AVHW_DEVICE_LANES=1
    run_check manyclips_vulkan_lanes tests/gpu/many-clips-check.sh MC_DEVICE=vulkan:0
    run_check manyclips_cuda tests/gpu/many-clips-check.sh MC_DEVICE=cuda:0
    # seven worker processes on vulkan:0, each on a decode queue of its own
    run_check claims_vulkan_procs tests/gpu/claims-check.sh
    # a decode session sized for its stream needs less memory than FFmpeg's
    # largest-size one (real H.265 sessions on NVIDIA's Vulkan driver)
    [ -x "$GPUBUNDLE/bin/libs_vkextent" ] && run_check libs_vkextent "$GPUBUNDLE/bin/libs_vkextent"
    [ -x "$GPUBUNDLE/bin/elements_concurrent" ] && run_check elements_concurrent "$GPUBUNDLE/bin/elements_concurrent"
    [ -x "$GPUBUNDLE/bin/elements_avhwenc" ] && run_check elements_avhwenc "$GPUBUNDLE/bin/elements_avhwenc"
    [ -x "$GPUBUNDLE/bin/elements_interop_cuda" ] && run_check elements_interop_cuda "$GPUBUNDLE/bin/elements_interop_cuda"
    [ -x "$GPUBUNDLE/bin/elements_interop_cuda_gpu" ] && run_check elements_interop_cuda_gpu "$GPUBUNDLE/bin/elements_interop_cuda_gpu" AVHW_TEST_HW=1
    # GStreamer's vulkan elements on the avhw device (NVIDIA's Vulkan driver:
    # Vulkan Video decoding, a queue element between avhwdec and vulkandownload)
    [ -x "$GPUBUNDLE/bin/elements_interop_vulkan" ] && run_check elements_interop_vulkan "$GPUBUNDLE/bin/elements_interop_vulkan"
    # avhwconvertscale against videoconvertscale: scale_cuda, and scale_vulkan
    # on NVIDIA's Vulkan driver (the Debian 13 bundle's FFmpeg has it; without
    # it the program says so and exits 77)
    [ -x "$GPUBUNDLE/bin/elements_convertscale" ] && run_check elements_convertscale_cuda "$GPUBUNDLE/bin/elements_convertscale" AVHW_TEST_DEVICE=cuda
    [ -x "$GPUBUNDLE/bin/elements_convertscale" ] && run_check elements_convertscale_vulkan "$GPUBUNDLE/bin/elements_convertscale" AVHW_TEST_DEVICE=vulkan
    # the CUDA backend's own converter (cuda-convert) against videoconvertscale
    [ -x "$GPUBUNDLE/bin/elements_convertscale_cuda" ] && run_check elements_convertscale_cuda_kernel "$GPUBUNDLE/bin/elements_convertscale_cuda"
    echo; echo "check summary:"; printf '  %s\n' "${CHECK_RESULTS[@]}"
fi

if has conformance; then
    stage "conformance: NVDEC through avhwdec device=$DEVICE"
    M=.gpu/media/MANIFEST.tsv
    b=$(budget 200)
    mkdir -p "$LOGS/conf-nofallback" "$LOGS/conf-fallback"
    timeout -k 10 "$b" bash tests/gpu/conformance-gst.sh --device "$DEVICE" --fallback false \
        --jobs "${CONF_JOBS:-4}" --timeout 60 --logdir "$LOGS/conf-nofallback" \
        --results "$LOGS/conf-nofallback.tsv" "$M"
    echo "conformance-gst exit $?"
    awk -F'\t' '$1 != "PASS" { print $2 }' "$LOGS/conf-nofallback.tsv" > "$LOGS/not-passed.txt" 2>/dev/null
    if [ -s "$LOGS/not-passed.txt" ]; then
        stage "conformance: the $(wc -l < "$LOGS/not-passed.txt") stream(s) that did not pass, with fallback=true"
        b=$(budget 120)
        timeout -k 10 "$b" bash tests/gpu/conformance-gst.sh --device "$DEVICE" --fallback true \
            --jobs "${CONF_JOBS:-4}" --timeout 60 --logdir "$LOGS/conf-fallback" \
            --files "$LOGS/not-passed.txt" --results "$LOGS/conf-fallback.tsv" "$M"
        echo "conformance-gst exit $?"
    fi
    { sed 's/^/fallback=false\t/' "$LOGS/conf-nofallback.tsv" 2>/dev/null
      sed 's/^/fallback=true\t/' "$LOGS/conf-fallback.tsv" 2>/dev/null; } > "$OUT/conformance.tsv"
fi

if has zerocopy; then
    stage "zerocopy: avhwdec ! video/x-raw(memory:CUDAMemory) ! cudadownload"
    case $DEVICE in cuda*) ZC_DEV=$DEVICE ;; *) ZC_DEV=cuda:0 ;; esac
    ZC_CLIP=${ZC_CLIP:-.gpu/bench/bench-1080p-h264.mp4}
    ZL=$LOGS/zerocopy; mkdir -p "$ZL"
    echo "gstreamer: $(gst-launch-1.0 --version | sed -n 's/^GStreamer //p'); clip: $ZC_CLIP; device: $ZC_DEV"
    if ! timeout 60 gst-inspect-1.0 cudadownload > /dev/null 2>&1; then
        echo "VERDICT zerocopy: SKIP (no cudadownload: nvcodec registers no element without an NVIDIA GPU)" | tee "$OUT/zerocopy.txt"
    elif [ ! -f "$ZC_CLIP" ]; then
        echo "VERDICT zerocopy: SKIP (no $ZC_CLIP)" | tee "$OUT/zerocopy.txt"
    else
        # zc_md5 NAME PIPELINE-TAIL...: decode ZC_CLIP through the tail; the MD5 that
        # videocodectestsink posts at EOS (of the visible rows of each plane, chroma
        # de-interleaved: what `ffmpeg -pix_fmt yuv420p -f md5` gives for NV12)
        zc_md5() {
            local name=$1 b; shift
            b=$(budget 90)
            GST_DEBUG="*:2,avhwcudamemory:5" GST_DEBUG_NO_COLOR=1 timeout -k 5 "$b" gst-launch-1.0 -m \
                filesrc location="$ZC_CLIP" ! parsebin ! "$@" ! video/x-raw,format=NV12 ! \
                videocodectestsink > "$ZL/$name.log" 2>&1
            echo "$name: gst-launch exit $? (limit ${b} s): $*"
            grep -m1 -oE 'conformance/checksum.*checksum=\(string\)[0-9a-f]{32}' "$ZL/$name.log" |
                grep -oE '[0-9a-f]{32}$' > "$ZL/$name.md5"
        }
        zc_md5 cudadownload avhwdec device="$ZC_DEV" fallback=false ! "video/x-raw(memory:CUDAMemory)" ! cudadownload
        zc_md5 avhwdownload avhwdec device="$ZC_DEV" fallback=false ! avhwdownload
        timeout -k 5 "$(budget 90)" ffmpeg -v error -nostdin -i "$ZC_CLIP" -map 0:v:0 -pix_fmt yuv420p -f md5 - \
            2> "$ZL/ffmpeg.err" | sed 's/^MD5=//' > "$ZL/ffmpeg.md5"
        frames=$(timeout 60 ffprobe -v error -select_streams v:0 -count_packets -show_entries \
            stream=nb_read_packets -of csv=p=0 "$ZC_CLIP")
        wrapped=$(grep -c 'wrapped a ' "$ZL/cudadownload.log")
        copied=$(grep -c 'copied a ' "$ZL/cudadownload.log")
        m_cd=$(cat "$ZL/cudadownload.md5") m_ad=$(cat "$ZL/avhwdownload.md5") m_ff=$(cat "$ZL/ffmpeg.md5")
        echo "md5: cudadownload ${m_cd:-none}, avhwdownload ${m_ad:-none}, ffmpeg software ${m_ff:-none}"
        grep -E 'ERROR|WARN' "$ZL/cudadownload.log" | head -n 5
        exact=no; [ -n "$m_cd" ] && [ "$m_cd" = "$m_ad" ] && exact=yes
        ffx=no; [ -n "$m_cd" ] && [ "$m_cd" = "$m_ff" ] && ffx=yes
        echo "VERDICT zerocopy (GStreamer $(gst-launch-1.0 --version | sed -n 's/^GStreamer //p')): frames ${frames:-?}, wrapped $wrapped, copied $copied, bit-exact vs avhwdownload: $exact, vs ffmpeg software: $ffx" | tee "$OUT/zerocopy.txt"
    fi
fi

if has transcode; then
    stage "transcode: tests/gpu/transcode.sh, avhwdec device=$DEVICE ! avhwenc"
    b=$(budget 90)
    timeout -k 5 "$b" bash tests/gpu/transcode.sh "${TC_CLIP:-.gpu/bench/bench-1080p-h264-30f.mp4}" "$DEVICE" \
        | tee "$OUT/transcode.txt"
    echo "transcode exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
    timeout 30 ffprobe -hide_banner -demuxers 2>/dev/null | grep -qw mpegts ||
        echo "note: this FFmpeg has no mpegts demuxer: ffprobe cannot read the .ts file, so its FAIL says nothing of avhwenc" |
        tee -a "$OUT/transcode.txt"
fi

if has bench; then
    stage "bench: tests/bench/run-all.sh --device $DEVICE"
    b=$(budget 400)
    mkdir -p "$LOGS/bench"
    timeout -k 10 "$b" bash tests/bench/run-all.sh --device "$DEVICE" --clips .gpu/bench \
        --out "$LOGS/bench" --runs "${BENCH_RUNS:-2}" --iterations "${BENCH_ITER:-20}" \
        --streams "${BENCH_STREAMS:-1 2 4 7 14}" ${BENCH_ONLY:+--only "$BENCH_ONLY"}
    echo "run-all exit $? (124: cut at ${b} s)"
    for f in bench.md results.txt reuse.csv bench.png; do
        [ -f "$LOGS/bench/$f" ] && cp "$LOGS/bench/$f" "$OUT/"
    done
    nvidia-smi --query-gpu=memory.used,clocks.sm,temperature.gpu --format=csv 2>&1
fi

if has reuseprofile; then
    stage "reuseprofile: many short clips in one process (issue 17)"
    for c in h264 h265; do
        # the 300-frame clips: the first 300 frames of the long ones, stream-copied
        ffmpeg -v error -y -i .gpu/bench/bench-1080p-$c.mp4 -frames:v 300 -c copy \
            "/tmp/bench-1080p-$c-300f.mp4" || echo "reuseprofile: no 300-frame $c clip"
    done
    for run in h264-30f:${REUSE_N:-30} h265-30f:${REUSE_N:-30} h264-300f:10 h265-300f:10; do
        c=${run%%:*}; n=${run#*:}
        clip=.gpu/bench/bench-1080p-$c.mp4
        [ -f "$clip" ] || clip=/tmp/bench-1080p-$c.mp4
        [ -f "$clip" ] || continue
        b=$(budget 120)
        [ "$b" -lt 20 ] && { echo "reuseprofile: out of time before $c"; break; }
        timeout -k 5 "$b" bash tests/bench/reuse.sh --device "$DEVICE" --clip "$clip" \
            -n "$n" > "$LOGS/reuse-$c.md" 2>&1
        echo "reuse.sh $c exit $?"
        grep -E '^summary|^phases|ffmpeg process' "$LOGS/reuse-$c.md"
        cp "$LOGS/reuse-$c.md" "$OUT/"
    done
    b=$(budget 60)
    if [ "$b" -ge 20 ]; then
        GST_DEBUG="avhwdec:5,avhw-ffmpeg:5,avhwcache:5,avhwcuda*:5,GST_STATES:4" GST_DEBUG_NO_COLOR=1 \
            timeout -k 5 "$b" avhw-bench-reuse -n 3 -d "$DEVICE" \
            .gpu/bench/bench-1080p-h264-30f.mp4 > "$OUT/reuse-timeline.log" 2>&1
        echo "timeline exit $?: $(wc -l < "$OUT/reuse-timeline.log") lines"
    fi
    b=$(budget 150)
    if [ "$b" -ge 30 ]; then
        timeout -k 5 "$b" bash tests/gpu/conformance-gst.sh --device "$DEVICE" --fallback false \
            --one-process --shuffle 17 --passes 2 --decoders-limit 64 --expect-reuse \
            --results "$OUT/reuse-conformance.tsv" .gpu/media/MANIFEST.tsv > "$LOGS/reuse-conformance.log" 2>&1
        echo "reuse conformance exit $?"; grep -E '^#|^\||passed,|REUSE' "$LOGS/reuse-conformance.log"
    fi
    b=$(budget 60)
    if [ "$b" -ge 20 ] && [ -f .gpu/clips/MANIFEST.tsv ]; then
        timeout -k 5 "$b" bash tests/gpu/conformance-gst.sh --device "$DEVICE" --fallback true \
            --one-process --shuffle 17 --passes 2 --decoders-limit 64 --expect-reuse \
            --first h264/h264-crop-320x232.h264,h264/h264-8bit-420-320x240.h264,h264/h264-crop-320x232.h264,h265/h265-crop-320x236.h265,h265/h265-main-320x240.h265,h265/h265-crop-320x236.h265 \
            --results "$OUT/reuse-clips.tsv" .gpu/clips/MANIFEST.tsv > "$LOGS/reuse-clips.log" 2>&1
        echo "reuse clips exit $?"; grep -E '^#|^\||passed,|REUSE' "$LOGS/reuse-clips.log"
    fi
fi

if has reusemany; then
    stage "reusemany: ${REUSE_MANY_N:-1000} pipelines in one process, device memory (issue 17)"
    b=$(budget 200)
    timeout -k 5 "$b" env -u GST_AVHW_REUSE avhw-bench-reuse -n "${REUSE_MANY_N:-1000}" \
        -d "$DEVICE" .gpu/bench/bench-1080p-h264-30f.mp4 > "$OUT/reuse-many.md" 2>&1
    echo "reusemany exit $? (124: cut at $b s)"
    grep -E '^summary|^phases' "$OUT/reuse-many.md"
fi

if has distinct; then
    stage "distinct: one decoder, clip after clip with other parameter sets (issue 30)"
    b=$(budget "${DISTINCT_BUDGET_S:-420}")
    OUT=$OUT LOGS=$LOGS timeout -k 10 "$b" bash tests/gpu/distinct.sh
    echo "distinct.sh exit $? (124: cut at ${b} s)"
fi

if has diag; then
    M=.gpu/media/MANIFEST.tsv
    mkdir -p "$LOGS/diag"
    for f in ${DIAG_FILES:-}; do
        b=$(budget 60)
        [ "$b" -lt 20 ] && { echo "diag: out of time before $f"; break; }
        stage "diag: $f"
        row=$(awk -F'\t' -v f="$f" '$1 == f' "$M")
        pix=$(echo "$row" | cut -f5); ref=$(echo "$row" | cut -f7)
        tag=$(echo "$f" | tr '/' '_')
        # -threads 1: frame threads add a surface each, and past 32 NVDEC refuses and
        # FFmpeg falls back to software silently; "Failed setup" in stderr says so
        got=$(timeout 60 ffmpeg -v warning -nostdin -threads 1 -hwaccel cuda -i ".gpu/media/$f" -map 0:v:0 \
            -fps_mode passthrough -autoscale 0 -pix_fmt "${pix:-yuv420p}" -f md5 - 2> "$LOGS/diag/$tag.ffmpeg-md5.err")
        how="NVDEC"; grep -q 'Failed setup' "$LOGS/diag/$tag.ffmpeg-md5.err" && how="SOFTWARE (NVDEC setup failed)"
        echo "ffmpeg -threads 1 -hwaccel cuda ($pix, decoded by $how): ${got#MD5=} manifest: $ref $( [ "${got#MD5=}" = "$ref" ] && echo EQUAL || echo DIFFERENT)"
        grep -v 'Loaded sym' "$LOGS/diag/$tag.ffmpeg-md5.err" | head -n 5
        timeout 60 ffmpeg -v error -nostdin -threads 1 -hwaccel cuda -i ".gpu/media/$f" -map 0:v:0 -fps_mode passthrough \
            -autoscale 0 -pix_fmt "${pix:-yuv420p}" -f framemd5 - 2>/dev/null | grep -v '^#' | head -n 3
        timeout 60 ffmpeg -v verbose -nostdin -hwaccel cuda -hwaccel_output_format cuda -i ".gpu/media/$f" -map 0:v:0 \
            -f null - > "$LOGS/diag/$tag.ffmpeg-verbose.log" 2>&1
        grep -iE 'nvdec|cuvid|hwaccel|fail|unsupported|not supported|error|Stream #0:0' "$LOGS/diag/$tag.ffmpeg-verbose.log" | \
            grep -v '^ *Metadata' | sort | uniq -c | sort -rn | head -n 12
        GST_DEBUG=avhwdec:6,avhw-ffmpeg:6,avhwcuda:5 timeout 60 gst-launch-1.0 filesrc location=".gpu/media/$f" ! parsebin ! \
            avhwdec device="$DEVICE" fallback=false ! avhwdownload ! fakesink > "$LOGS/diag/$tag.avhwdec.log" 2>&1
        echo "avhwdec fallback=false: exit $?"
        grep -iE 'get_format|hwaccel|nvdec|cuvid|fail|refus|cannot|crop|output video' "$LOGS/diag/$tag.avhwdec.log" | \
            sed 's/\x1b\[[0-9;]*m//g; s/^[0-9:.]* *[0-9]* *0x[0-9a-f]* *//' | sort | uniq -c | sort -rn | head -n 12
    done
fi

if has profile; then
    stage "profile: tests/gpu/profile.sh --device $DEVICE"
    b=$(budget 400)
    mkdir -p "$LOGS/profile"
    timeout -k 10 "$b" bash tests/gpu/profile.sh --device "$DEVICE" --clips .gpu/bench \
        ${PROFILE_PARTS:+--parts "$PROFILE_PARTS"} | tee "$OUT/profile.md"
    echo "profile exit $? (124: cut at ${b} s)"
fi

if has speed; then
    stage "speed: tests/gpu/speed.sh --device $DEVICE (issue 30 items 1 and 3, issue 32)"
    b=$(budget 400)
    timeout -k 10 "$b" bash tests/gpu/speed.sh --device "$DEVICE" \
        ${SP_PARTS:+--parts "$SP_PARTS"} ${SP_CLIPS:+--clips "$SP_CLIPS"} | tee "$OUT/speed.md"
    echo "speed exit $? (124: cut at ${b} s)"
fi

if has robustness; then
    stage "robustness: damaged streams in ${ROBUST_DIR:-.gpu/fuzz} through avhwdec device=$DEVICE"
    b=$(budget 300)
    ROBUST_LOGS=$LOGS/robustness timeout -k 10 "$b" bash tests/robustness/robustness.sh \
        "${ROBUST_DIR:-.gpu/fuzz}" "$DEVICE" 8 | tee "$OUT/robustness.md"
    echo "robustness exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
fi

if has parallel; then
    if [ "${PAR_CONFORMANCE:-1}" = 1 ]; then
        stage "parallel: conformance with avhwdec device=$DEVICE fallback=false parallel=4"
        b=$(budget 200)
        mkdir -p "$LOGS/conf-parallel"
        timeout -k 10 "$b" bash tests/gpu/conformance-gst.sh \
            --decoder "avhwdec device=$DEVICE fallback=false parallel=4 ! avhwdownload" \
            --jobs "${CONF_JOBS:-4}" --timeout 60 --logdir "$LOGS/conf-parallel" \
            --results "$OUT/conformance-parallel.tsv" .gpu/media/MANIFEST.tsv
        echo "conformance-gst exit $?"
    fi
    stage "parallel: tests/bench/parallel.sh --device $DEVICE"
    b=$(budget 480)
    PAR_OPTS=""
    [ "${PAR_REPORT:-0}" = 1 ] && PAR_OPTS=--report
    # shellcheck disable=SC2086  # PAR_OPTS: zero or one word
    timeout -k 10 "$b" bash tests/bench/parallel.sh --device "$DEVICE" --clips .gpu/bench \
        --parallel "${PAR_VALUES:-1 2 4 7}" --frames "${PARALLEL_FRAMES:-1800}" \
        --codecs "${PAR_CODECS:-h264 h265}" --gops "${PAR_GOPS:-60 250}" \
        --max-buffered "${PAR_MAX_BUFFERED:-2048}" --check $PAR_OPTS | tee "$OUT/parallel.md"
    echo "parallel.sh exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
fi

if has nvbench; then
    stage "nvbench: GStreamer's NVDEC decoders, ffmpeg -threads 1"
    mkdir -p "$LOGS/nvbench"
    export BENCH_RESULTS=$LOGS/nvbench/results.txt
    GST_DEBUG=2 timeout 30 gst-launch-1.0 filesrc location=.gpu/bench/bench-1080p-h264-30f.mp4 ! parsebin ! nvh264dec ! \
        fakesink > "$LOGS/nvbench/nvh264dec-parsebin.log" 2>&1
    echo "gst-launch parsebin ! nvh264dec ! fakesink: exit $?"; grep -vE 'XDG_RUNTIME' "$LOGS/nvbench/nvh264dec-parsebin.log" | \
        sed 's/\x1b\[[0-9;]*m//g' | grep -E 'WARN|ERROR' | head -n 8
    b=$(budget 240)
    timeout -k 10 "$b" bash tests/bench/throughput.sh --device "$DEVICE" --clips .gpu/bench --runs "${BENCH_RUNS:-2}" \
        --decoders "avhwdec nvdec ffmpeg-cuda ffmpeg-cuda-t1" | tee "$LOGS/nvbench/throughput.md"
    b=$(budget 120)
    timeout -k 10 "$b" bash tests/bench/scaling.sh --device "$DEVICE" --clip .gpu/bench/bench-1080p-h264.mp4 \
        --streams "${BENCH_STREAMS:-1 2 4 7 14}" --decoders nvdec | tee "$LOGS/nvbench/scaling.md"
    cat "$LOGS/nvbench/throughput.md" "$LOGS/nvbench/scaling.md" > "$OUT/nvbench.md"
    cp "$BENCH_RESULTS" "$OUT/nvbench-results.txt" 2>/dev/null
fi

if has convertscale; then
    stage "convertscale: decode and scale to 224x224 on $DEVICE against the CPU (issue 18)"
    b=$(budget 240)
    timeout -k 10 "$b" bash tests/bench/convertscale.sh --device "$DEVICE" --clips .gpu/bench \
        | tee "$OUT/convertscale.md"
    echo "convertscale.sh exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
fi

if has cudaconvert; then
    stage "cudaconvert: cuda-convert through NVDEC frames to 224x224 RGBP (issue 31)"
    # CC_DEVICES: the devices, one table each (default DEVICE; "cuda:0 vulkan":
    # libplacebo on NVIDIA's Vulkan driver beside cuda-convert)
    for d in ${CC_DEVICES:-$DEVICE}; do
        b=$(budget 300)
        timeout -k 10 "$b" env PARTS="${CC_PARTS:-quality speed}" bash tests/gpu/cuda-convert.sh \
            --device "$d" --clips "${CC_CLIPS:-.gpu/bench}" \
            | tee -a "$OUT/cuda-convert.md"
        echo "cuda-convert.sh --device $d exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
    done
fi

if has manyclips; then
    stage "manyclips: many 30-frame clips per GPU, in one process and in many (issue 32)"
    b=$(budget 300)
    timeout -k 10 "$b" bash tests/gpu/many-clips.sh --device "$DEVICE" --clips .gpu/bench \
        --threads "${MC_THREADS:-1 4 7 14}" --procs "${MC_PROCS:-7 14}" | tee "$OUT/many-clips.md"
    echo "many-clips.sh exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
fi

if has longstreams; then
    stage "longstreams: long 1080p streams at once, in one process and in many (issue 32)"
    b=$(budget 300)
    timeout -k 10 "$b" bash tests/gpu/long-streams.sh --device "$DEVICE" --clips .gpu/prof \
        --k "${LS_K:-7 14}" --procs "${LS_PROCS:-7}" --repeat "${LS_REPEAT:-2}" | tee "$OUT/long-streams.md"
    echo "long-streams.sh exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
fi

if has parwarm; then
    stage "parwarm: parallel=N on a warm process, with the first frame's account (issue 30, item 4)"
    b=$(budget 200)
    pw_clip=.gpu/bench/par-1920x1080-h264-g60-n${PW_FRAMES:-900}.mp4
    GST_DEBUG="${PW_GST_DEBUG:-avhwdec:6}" GST_DEBUG_NO_COLOR=1 GST_DEBUG_FILE="$LOGS/parwarm.log" \
        timeout -k 10 "$b" bash tests/bench/parallel-warm.sh --device "$DEVICE" --clip "$pw_clip" \
        -n "${PW_N:-3}" --parallel "${PW_VALUES:-1 4 7}" | tee "$OUT/parallel-warm.md"
    echo "parallel-warm.sh exit ${PIPESTATUS[0]} (124: cut at ${b} s)"
    # each pipeline's first frame: when its segment's first packet was queued,
    # decoded, out; the sessions' first frames; where the sessions' time went
    grep -E 'first frame: |the first frame of the segment|session [0-9]+ open in|parallel=[0-9]+: [0-9]+ frames in|session [0-9]+: [0-9]+ segments' \
        "$LOGS/parwarm.log" | sed 's/^[^ ]* *[0-9]* *0x[0-9a-f]* //' | head -n 400 > "$OUT/parallel-warm-timeline.txt"
    echo "$(wc -l < "$OUT/parallel-warm-timeline.txt") lines in $OUT/parallel-warm-timeline.txt"
fi

if has python; then
    stage "python: PyGObject for this machine's Python, then tests/python and the docs example"
    b=$(budget 400)
    # shellcheck disable=SC2086
    OUT=$OUT LOGS=$LOGS DEVICE=$DEVICE timeout -k 10 "$b" bash tests/gpu/python-on-gpu.sh ${PY_TESTS:-}
    echo "python-on-gpu.sh exit $? (124: cut at ${b} s)"
fi

if has vulkanvideo; then
    stage "vulkanvideo: avhwdec device=vulkan (FFmpeg's Vulkan hwaccel) beside cuda and ffmpeg"
    b=$(budget "${VV_BUDGET_S:-300}")
    case $DEVICE in vulkan*) VV_DEV=$DEVICE ;; *) VV_DEV=vulkan ;; esac
    # shellcheck disable=SC2086  # VV_PARTS: a word list
    timeout -k 10 "$b" env PLUGINS="$PLUGINS" bash tests/gpu/vulkan-video.sh --device "$VV_DEV" \
        --budget "$(( b - 10 ))" --out "$OUT" --logs "$LOGS/vulkan-video" ${VV_PARTS:+--parts "$VV_PARTS"} \
        ${VV_CLIPS:+--clips "$VV_CLIPS"}
    echo "vulkan-video exit $? (124: cut at ${b} s)"
fi

stage "done"
tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . 2>/dev/null
ls -l "$OUT"
