#!/bin/sh
# iogap's placement probe: launched like the measured tool (or run by the
# dd driver itself), every task prints its rank, node, the CPUs it may run
# on and the sockets of those CPUs (sysfs), so placement and binding are
# verified, not assumed (iogap.core.placement reads the line).
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
# Rank ids from Open MPI, PMIx, MPICH/Hydra, Slurm
echo "iogap-rank: rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-?}}}} host=$(uname -n) cpus=$c sockets=${s:-?}"
