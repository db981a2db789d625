# iogap's job-side helpers: sourced by job scripts and the dd driver.
# Every measured step is labelled, timed by the harness itself and, where
# it writes, followed by the bytes it left on disk; eviction reports what
# stayed cached. The Python side reads these lines (iogap.core.steps).

# The harness's clock: bash's $EPOCHREALTIME (microseconds, read with no
# process started; date without it) checked against the kernel's monotonic
# /proc/uptime. A step during which the two disagree by more than 20 ms
# (the wall clock was stepped by NTP or an operator) is timed by the
# monotonic clock alone. What the wrapper and the tool's start-up add to a
# step is measured by iogap_calibrate.
iogap_now() {
    read -r iogap_up _ < /proc/uptime
    iogap_wall=${EPOCHREALTIME:-$(date +%s.%N)}
    iogap_wall=${iogap_wall/,/.}
}

# iogap_calibrate N FIELD=VALUE... -- COMMAND...: run a step that moves no
# data N times, labelled calibrate=I: the wrapper's and the tool's own
# start and exit, which every timed step also pays
iogap_calibrate() {
    local n=$1 i
    shift
    for i in $(seq 1 "$n"); do iogap_run calibrate="$i" "$@"; done
}

# iogap_begin FIELD=VALUE... / iogap_end: label and time the step between
# them (ReFrame's main step, which the launcher renders itself).
iogap_begin() {
    echo "iogap-step: $*"
    iogap_now
    iogap_t0=$iogap_wall iogap_u0=$iogap_up
}
iogap_end() {
    iogap_now
    echo "iogap-time: seconds=$(iogap_elapsed "$iogap_t0" "$iogap_u0")"
}

# iogap_elapsed WALL0 UP0: seconds from that iogap_now to the last one
iogap_elapsed() {
    awk -v a="$1" -v b="$iogap_wall" -v c="$2" -v d="$iogap_up" 'BEGIN {
        s = b - a; m = d - c
        if (s < m - 0.02 || s > m + 0.02) {
            print "iogap: the wall clock moved by " s - m " s during the " \
                "step: timed by the monotonic clock" > "/dev/stderr"; s = m }
        printf "%.6f", s}'
}

# iogap_run FIELD=VALUE... -- COMMAND...: label, run and time one step
iogap_run() {
    local labels=()
    while [ "$1" != -- ]; do labels+=("$1"); shift; done
    shift
    iogap_begin "${labels[@]}"
    "$@"
    iogap_end
}

# iogap_bytes FILE...: the files' length and the bytes really allocated
iogap_bytes() {
    echo "iogap-bytes: length=$(du -cb --apparent-size "$@" | tail -1 |
        cut -f1) allocated=$(du -c -B1 "$@" | tail -1 | cut -f1)"
}

# iogap_evict LABEL METHOD DD FILE...: evict FILEs from the page cache with
# drop_caches (root) or per-file fadvise (GNU dd nocache), then report the
# bytes still resident (fincore), or "unknown" without fincore.
iogap_evict() {
    local label=$1 method=$2 dd=$3 res=unknown f
    shift 3
    if [ "$method" = drop_caches ]; then
        sync "$@"
        echo 1 > /proc/sys/vm/drop_caches
    else
        for f in "$@"; do
            "$dd" of="$f" oflag=nocache conv=notrunc,fdatasync count=0 \
                status=none
            "$dd" if="$f" iflag=nocache count=0 status=none
        done
    fi
    if command -v fincore >/dev/null; then
        res=$(fincore -bno RES "$@" | awk '{s += $1} END {print s + 0}') ||
            res=unknown
    fi
    echo "iogap-evict: $label $method resident=$res"
}

# iogap_odirect DD FILE BS: exit the job early, with the reason, if the
# file system refuses O_DIRECT; any other failure is a failure.
iogap_odirect() {
    local err
    if ! err=$("$1" if=/dev/zero of="$2.odirect" bs="$3" count=1 \
            oflag=direct status=none 2>&1); then
        rm -f "$2.odirect"
        case $err in
            *"Invalid argument"*|*"not supported"*)
                echo "iogap-skip: O_DIRECT is refused on" \
                    "$(stat -f -c %T "$(dirname "$2")") under" \
                    "$(dirname "$(dirname "$2")"): ${err##*: }"
                exit 0 ;;
            *) echo "iogap: O_DIRECT probe failed: $err" >&2; exit 1 ;;
        esac
    fi
    rm -f "$2.odirect"
}
