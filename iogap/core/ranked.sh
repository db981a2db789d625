#!/bin/bash
# ranked.sh [--trace QUANTUM] COMMAND...: run by every rank of a launched
# step, it times COMMAND in the rank itself (iogap-rank-time:), so that the
# launcher's start-up, which varies by a second on a loaded node, is not in
# the harness's time of the step (iogap.core.steps). With --trace, the
# bytes COMMAND moves are traced too (iogap_traced).
. "$(dirname "$0")/job.sh"
traced=()
if [ "${1:-}" = --trace ]; then
    traced=(iogap_traced "$2")
    shift 2
fi
iogap_now
t0=$iogap_wall u0=$iogap_up iogap_psi0=$iogap_psi iogap_cpu0=$iogap_cpu
"${traced[@]}" "$@"
status=$?
iogap_now
echo "iogap-rank-time: seconds=$(iogap_elapsed "$t0" "$u0")$(iogap_loaded)"
exit $status
