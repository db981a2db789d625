# iogap's job-side helpers: sourced by job scripts and the dd driver.
# Every measured step is labelled, timed by the harness itself and, where
# it writes, followed by the bytes it left on disk; eviction reports what
# stayed cached. The Python side reads these lines (iogap.core.steps).

# The directory of the project's own tools: this file's
iogap_tools=${BASH_SOURCE[0]%/*}
[[ $iogap_tools != "${BASH_SOURCE[0]}" ]] || iogap_tools=.

# The harness's clock: bash's $EPOCHREALTIME (microseconds, read with no
# process started; date without it) checked against the kernel's monotonic
# /proc/uptime. A step during which the two disagree by more than 20 ms
# (the wall clock was stepped by NTP or an operator) is timed by the
# monotonic clock alone. What the wrapper and the tool's start-up add to a
# step is measured by iogap_calibrate. Both are kept as integer
# microseconds: shell arithmetic, which no awk, locale or float format
# can change, whatever the size of a number.
iogap_now() {
    local up
    read -r up _ < /proc/uptime
    iogap_micro iogap_wall "${EPOCHREALTIME:-$(date +%s.%N)}"
    iogap_micro iogap_up "$up"
    iogap_load
}

# iogap_micro VAR SECONDS.FRACTION: VAR set to the integer microseconds
# (a locale's decimal comma too), with no process started
iogap_micro() {
    local whole=${2%%[.,]*} frac=${2#*[.,]}
    [ "$frac" != "$2" ] || frac=
    frac=${frac}000000
    printf -v "$1" '%d' $((10#$whole * 1000000 + 10#${frac:0:6}))
}

# iogap_seconds MICROSECONDS: the decimal text the step lines carry
iogap_seconds() {
    local sign=
    set -- "$1"
    if [ "$1" -lt 0 ]; then sign=- && set -- $((-$1)); fi
    printf '%s%d.%06d' "$sign" $(($1 / 1000000)) $(($1 % 1000000))
}

# iogap_load: what a step's time holds besides its own work, read without
# starting a process. iogap_psi: microseconds during which some task of the
# host waited for a CPU (/proc/pressure/cpu; "na" without PSI), which bounds
# the step's own scheduling delay. iogap_cpu: CPU ticks (1/100 s) the
# shell's finished children used (/proc/self/stat), which a wait for a CPU
# does not inflate.
iogap_load() {
    local some _w _x _y stat
    iogap_psi=na
    if read -r some _w _x _y iogap_psi _ < /proc/pressure/cpu 2>/dev/null; then
        iogap_psi=${iogap_psi#total=}
        [[ $iogap_psi =~ ^[0-9]+$ ]] || iogap_psi=na
    fi
    read -r -a stat < /proc/self/stat
    iogap_cpu=$((stat[15] + stat[16]))
}

# iogap_loaded: " waited=S cpu=S" since iogap_psi0 and iogap_cpu0
iogap_loaded() {
    local w=na
    if [ "$iogap_psi" != na ] && [ "$iogap_psi0" != na ]; then
        w=$((iogap_psi - iogap_psi0))
        w=$(printf '%d.%06d' $((w / 1000000)) $((w % 1000000)))
    fi
    local c=$((iogap_cpu - iogap_cpu0))
    printf ' waited=%s cpu=%d.%02d' "$w" $((c / 100)) $((c % 100))
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
# them (ReFrame's main step, which the launcher renders itself), and say
# what it moved to and from storage (iogap_io).
iogap_begin() {
    echo "iogap-step: $*"
    iogap_io
    iogap_io0=("${iogap_io_now[@]}")
    iogap_now
    iogap_t0=$iogap_wall iogap_u0=$iogap_up
    iogap_psi0=$iogap_psi iogap_cpu0=$iogap_cpu
}
iogap_end() {
    iogap_now
    echo "iogap-time: seconds=$(iogap_elapsed "$iogap_t0" "$iogap_u0")$(iogap_loaded)"
    iogap_io
    local i delta=()
    for i in 0 1 2; do
        if [ "${iogap_io0[i]}" = na ] || [ "${iogap_io_now[i]}" = na ]; then
            delta+=(na)
        else
            delta+=($((iogap_io_now[i] - iogap_io0[i])))
        fi
    done
    echo "iogap-io: device_read=${delta[0]} device_written=${delta[1]}" \
        "fetched=${delta[2]}"
}

# iogap_device PATH: find the block device holding PATH (st_dev ->
# /sys/dev/block/MAJOR:MINOR: a disk, partition, loop or device-mapper
# device) and export its counters' file for every step; where PATH has no
# block device of its own (tmpfs, overlay, NFS, btrfs), say so.
iogap_device() {
    local dev major minor sys kind=disk
    dev=$(stat -c %d "$1") || return 1
    major=$(( (dev >> 8 & 0xfff) | (dev >> 32 & ~0xfff) ))
    minor=$(( (dev & 0xff) | (dev >> 12 & ~0xff) ))
    sys=/sys/dev/block/$major:$minor
    export IOGAP_DEVSTAT=
    if [ "$major" = 0 ] || [ ! -r "$sys/stat" ]; then
        echo "iogap-device: none $major:$minor $(stat -f -c %T "$1")"
        return 0
    fi
    [ ! -e "$sys/partition" ] || kind=partition
    [ ! -d "$sys/loop" ] || kind=loop
    [ ! -d "$sys/dm" ] || kind=dm
    IOGAP_DEVSTAT=$sys/stat
    echo "iogap-device: $(basename "$(readlink -f "$sys")") $major:$minor" \
        "$kind"
}

# iogap_io: bytes read and written so far by the scratch device (its
# sector counters) and fetched from storage by this shell's finished
# children (/proc/<shell>/io read_bytes: immune to other processes' I/O);
# "na" where unknown. Read without a fork, into iogap_io_now.
iogap_io() {
    local key value reads writes
    iogap_io_now=(na na na)
    if [ -n "${IOGAP_DEVSTAT:-}" ] && [ -r "$IOGAP_DEVSTAT" ]; then
        read -r _ _ reads _ _ _ writes _ < "$IOGAP_DEVSTAT"
        iogap_io_now[0]=$((reads * 512)) iogap_io_now[1]=$((writes * 512))
    fi
    if [ -r "/proc/$BASHPID/io" ]; then
        while read -r key value; do
            [ "$key" != read_bytes: ] || iogap_io_now[2]=$value
        done < "/proc/$BASHPID/io"
    fi
}

# iogap_elapsed WALL0 UP0: seconds from that iogap_now to the last one
iogap_elapsed() {
    local wall=$((iogap_wall - $1)) mono=$((iogap_up - $2))
    if [ "$wall" -lt $((mono - 20000)) ] || [ "$wall" -gt $((mono + 20000)) ]
    then
        echo "iogap: the wall clock moved by $(iogap_seconds \
            $((wall - mono))) s during the step: timed by the monotonic" \
            "clock" >&2
        wall=$mono
    fi
    iogap_seconds "$wall"
}

# iogap_traced QUANTUM COMMAND...: run COMMAND with its bytes traced as they
# move (iotrace.py: iogap-rank-io:); untraced on a node without python3
iogap_traced() {
    if command -v python3 >/dev/null; then
        python3 "$iogap_tools/iotrace.py" "$@"
    else
        echo "iogap-rank-io: none (no python3 on $HOSTNAME)"
        "${@:2}"
    fi
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

# iogap_bytes FILE...: the files' length, the bytes really allocated and
# those resident in the page cache (fincore; "unknown" without it)
iogap_bytes() {
    echo "iogap-bytes: length=$(du -cb --apparent-size "$@" | tail -1 |
        cut -f1) allocated=$(du -c -B1 "$@" | tail -1 | cut -f1)" \
        "resident=$(iogap_resident "$@")"
}

# iogap_resident FILE...: bytes of FILEs in the page cache, or "unknown";
# summed by the shell, in 64-bit integers (an awk prints 10 GB as 1e+10)
iogap_resident() {
    local sizes size sum=0
    if command -v fincore >/dev/null &&
            sizes=$(fincore -bno RES "$@" 2>/dev/null); then
        for size in $sizes; do sum=$((sum + size)); done
        echo "$sum"
    else
        echo unknown
    fi
}

# iogap_evict LABEL METHOD DD FILE...: evict FILEs from the page cache with
# drop_caches (root) or per-file fadvise (GNU dd nocache), then report the
# bytes still resident (fincore), or "unknown" without fincore.
iogap_evict() {
    local label=$1 method=$2 dd=$3 f
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
    echo "iogap-evict: $label $method resident=$(iogap_resident "$@")"
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

# iogap_tool NAME COMMAND: where COMMAND resolves on this node, the digest
# of that file and, for tools that say it (dd, fio, the MPI launchers), the
# version it prints: "iogap-tool: NAME path=P sha256=D version=V" (spaces
# as _). Never fails the job: what cannot be read is "none".
iogap_tool() {
    local path digest=none version=none
    path=$(command -v "$2" 2>/dev/null) && path=$(readlink -f "$path") ||
        path=none
    [ "$path" = none ] || digest=$(sha256sum "$path" 2>/dev/null |
        cut -c1-16) || digest=none
    case ${2##*/} in
        dd|fio|mpirun|mpiexec|srun)
            [ "$path" = none ] || version=$(timeout 10 "$path" --version \
                2>&1 </dev/null | head -1 | tr -s ' \t' _) || : ;;
    esac
    echo "iogap-tool: $1 path=$path sha256=${digest:-none}" \
        "version=${version:-none}"
}
