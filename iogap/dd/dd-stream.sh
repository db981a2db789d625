#!/bin/bash
# One dd stream as the study ran it (dd bs=1M count=10000 on one core):
# per repetition a memory copy (the control), a fresh file written and
# evicted, then read three times unflushed (read-once, read-3x). Launched
# once with the variants' binding, memory policy and clock, so every dd
# runs where the probe says it runs.
#
#   dd-stream.sh --dd PATH --file PATH --bs 1M --count N --reps N
#                [--memory-count N]       (the control's count, --count)
#                [--write-flags F] [--read-flags F] [--reads 3]
#                [--evict drop_caches|fadvise|none] [--odirect-probe]
#                [--darshan LIBDARSHAN]   (one log per step in ./darshan)
#                [--calibrations N]       (dd runs that move nothing, 5)
#                [--trace QUANTUM]        (every dd's bytes traced)
set -o errexit -o pipefail
. "$(dirname "$0")/job.sh"

reads=3 evict=none memcount= wflags= rflags= probe= darshan= calibrations=5 traced=()
while [ $# -gt 0 ]; do
    case $1 in
        --dd) dd=$2 ;; --file) file=$2 ;; --bs) bs=$2 ;; --count) count=$2 ;;
        --reps) reps=$2 ;; --reads) reads=$2 ;; --evict) evict=$2 ;;
        --memory-count) memcount=$2 ;;
        --write-flags) wflags=$2 ;; --read-flags) rflags=$2 ;;
        --darshan) darshan=$2 ;; --calibrations) calibrations=$2 ;;
        --trace) traced=(iogap_traced "$2") ;;
        --odirect-probe) probe=yes; shift; continue ;;
        *) echo "dd-stream: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done

# Where this process (and so every dd) may run: the placement probe,
# installed beside this driver
sh "$(dirname "$0")/rank-probe.sh"
[ -z "$probe" ] || iogap_odirect "$dd" "$file" "$bs"

# dd LOG ARGS..., traced when asked, with darshan-runtime preloaded in its
# non-MPI mode when asked (its log in LOG)
measured_dd() {
    if [ -n "$darshan" ]; then
        "${traced[@]}" env LD_PRELOAD="$darshan" DARSHAN_ENABLE_NONMPI=1 \
            DARSHAN_LOGFILE="$1" "$dd" "${@:2}"
    else
        "${traced[@]}" "$dd" "${@:2}"
    fi
}

# What the step wrapper and dd's own start and exit add to every step: dd
# as the writes run it, moving nothing
iogap_calibrate "$calibrations" op=calibrate rep=0 -- measured_dd \
    "$file.calib.darshan" if=/dev/zero of="$file.calib" bs="$bs" count=0 \
    $wflags 2>&1
rm -f "$file.calib" "$file.calib.darshan"

for rep in $(seq 1 "$reps"); do
    # Each write starts clean: no dirty pages of the last one
    rm -f "$file"
    sync
    # The control: dd with no device, just before the I/O steps on a quiet
    # device, so that they share the node's state (load, clock, neighbours)
    iogap_run op=memory rep="$rep" -- "${traced[@]}" "$dd" if=/dev/zero \
        of=/dev/null bs="$bs" count="${memcount:-$count}" 2>&1
    iogap_run op=write rep="$rep" -- measured_dd \
        "$PWD/darshan/write-$rep.darshan" \
        if=/dev/zero of="$file" bs="$bs" count="$count" $wflags 2>&1
    iogap_bytes "$file"
    [ "$reads" -gt 0 ] || continue
    [ "$evict" = none ] || iogap_evict "rep$rep" "$evict" "$dd" "$file"
    for pass in $(seq 1 "$reads"); do
        iogap_run op="read$pass" rep="$rep" -- measured_dd \
            "$PWD/darshan/read$pass-$rep.darshan" if="$file" of=/dev/null \
            bs="$bs" $rflags 2>&1
    done
done
