#!/bin/bash
# One dd stream as the study ran it (dd bs=1M count=10000 on one core):
# per repetition, write a fresh file, evict it from the page cache, then
# read it three times with no flush in between (read-once, read-3x).
# The job launches this once, with the variants' binding, memory policy
# and clock, so every dd below runs where the probe says it runs.
#
#   dd-stream.sh --dd PATH --file PATH --bs 1M --count N --reps N
#                [--write-flags F] [--read-flags F] [--reads 3]
#                [--evict drop_caches|fadvise|none] [--odirect-probe]
#                [--darshan LIBDARSHAN]   (one log per step in ./darshan)
set -o errexit -o pipefail
. "$(dirname "$0")/job.sh"

reads=3 evict=none wflags= rflags= probe= darshan=
while [ $# -gt 0 ]; do
    case $1 in
        --dd) dd=$2 ;; --file) file=$2 ;; --bs) bs=$2 ;; --count) count=$2 ;;
        --reps) reps=$2 ;; --reads) reads=$2 ;; --evict) evict=$2 ;;
        --write-flags) wflags=$2 ;; --read-flags) rflags=$2 ;;
        --darshan) darshan=$2 ;;
        --odirect-probe) probe=yes; shift; continue ;;
        *) echo "dd-stream: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done

# Where this process (and so every dd) may run
iogap_probe 0
[ -z "$probe" ] || iogap_odirect "$dd" "$file" "$bs"

# dd, with darshan-runtime preloaded in its non-MPI mode when asked
measured_dd() {
    if [ -n "$darshan" ]; then
        env LD_PRELOAD="$darshan" DARSHAN_ENABLE_NONMPI=1 \
            DARSHAN_LOGFILE="$PWD/darshan/$1.darshan" "$dd" "${@:2}"
    else
        "$dd" "${@:2}"
    fi
}

for rep in $(seq 1 "$reps"); do
    # Each write starts clean: no dirty pages of the last one
    rm -f "$file"
    sync
    iogap_run op=write rep="$rep" -- measured_dd "write-$rep" \
        if=/dev/zero of="$file" bs="$bs" count="$count" $wflags 2>&1
    iogap_bytes "$file"
    [ "$reads" -gt 0 ] || continue
    [ "$evict" = none ] || iogap_evict "rep$rep" "$evict" "$dd" "$file"
    for pass in $(seq 1 "$reads"); do
        iogap_run op="read$pass" rep="$rep" -- measured_dd \
            "read$pass-$rep" if="$file" of=/dev/null bs="$bs" $rflags 2>&1
    done
done
