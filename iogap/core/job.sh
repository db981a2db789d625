# iogap's job-side helpers: sourced by job scripts and the dd driver.
# Every measured step is labelled, timed by the harness itself and, where
# it writes, followed by the bytes it left on disk; eviction reports what
# stayed cached. The Python side reads these lines (iogap.core.steps).

# iogap_begin FIELD=VALUE... / iogap_end: label and time the step between
# them (ReFrame's main step, which the launcher renders itself).
iogap_begin() {
    echo "iogap-step: $*"
    iogap_t0=$(date +%s.%N)
}
iogap_end() {
    echo "iogap-time: seconds=$(awk -v a="$iogap_t0" -v b="$(date +%s.%N)" \
        'BEGIN {printf "%.6f", b - a}')"
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

# iogap_probe [RANK]: where this task runs (iogap.core.placement reads it):
# rank, node, the CPUs it may use, their sockets, and the clock (kHz) of
# the CPU it runs on, with where the host exposes it: cpufreq's
# scaling_cur_freq, else /proc/cpuinfo's "cpu MHz", else none.
iogap_probe() {
    local cpus r i files= stat cpu sockets clock= src=none
    cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
    for r in $(echo "$cpus" | tr , ' '); do
        i=${r%-*}
        while [ "$i" -le "${r#*-}" ]; do
            files="$files /sys/devices/system/cpu/cpu$i/topology/physical_package_id"
            i=$((i + 1))
        done
    done
    sockets=$(cat $files 2>/dev/null | sort -un | paste -sd, -)
    read -r stat </proc/$$/stat
    cpu=$(echo "${stat##*) }" | cut -d' ' -f37)
    if clock=$(cat "/sys/devices/system/cpu/cpu$cpu/cpufreq/scaling_cur_freq" \
            2>/dev/null); then
        src=scaling_cur_freq
    else
        clock=$(awk -F: -v c="$cpu" '/^processor/ {p = $2 + 0}
            /^cpu MHz/ && p == c {printf "%d", $2 * 1000; exit}' /proc/cpuinfo)
        [ -z "$clock" ] || src=cpuinfo
    fi
    echo "iogap-rank: rank=${1:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-?}}}}}" \
        "host=$(uname -n) cpus=$cpus sockets=${sockets:-?}" \
        "clock=${clock:-?}@$src cpu=$cpu"
}
