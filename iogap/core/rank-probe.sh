#!/bin/sh
# iogap's placement probe: launched like the measured tool (or run by the
# dd driver itself), every task prints its rank, node, the CPUs it may run
# on, the sockets of those CPUs (sysfs) and the clock (kHz) of the CPU it
# runs on, with where the host exposes it (cpufreq's scaling_cur_freq, else
# /proc/cpuinfo's "cpu MHz", else none), so placement, binding and clocks
# are verified, not assumed (iogap.core.placement reads the line).
c=$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)
f=
for r in $(echo "$c" | tr , " "); do
    i=${r%-*}
    while [ "$i" -le "${r#*-}" ]; do
        f="$f /sys/devices/system/cpu/cpu$i/topology/physical_package_id"
        i=$((i+1))
    done
done
s=$(cat $f 2>/dev/null | sort -un | paste -sd, -)
cpu=$(awk '{print $39}' /proc/self/stat)
src=none
if k=$(cat "/sys/devices/system/cpu/cpu$cpu/cpufreq/scaling_cur_freq" \
        2>/dev/null); then
    src=scaling_cur_freq
else
    k=$(awk -F: -v c="$cpu" '/^processor/ {p = $2 + 0}
        /^cpu MHz/ && p == c {printf "%d", $2 * 1000; exit}' /proc/cpuinfo)
    [ -z "$k" ] || src=cpuinfo
fi
# Rank ids from Open MPI, PMIx, MPICH/Hydra, Slurm
echo "iogap-rank: rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-?}}}}" \
    "host=$(uname -n) cpus=$c sockets=${s:-?} clock=${k:-?}@$src cpu=$cpu"
