#!/bin/bash
# iogap-ranked.sh COMMAND...: run by every rank of a launched step, it
# times COMMAND in the rank itself (iogap-rank-time:), so that the
# launcher's start-up, which varies by a second on a loaded node, is not in
# the harness's time of the step (iogap.core.steps).
. "$(dirname "$0")/job.sh"
iogap_now
t0=$iogap_wall u0=$iogap_up iogap_psi0=$iogap_psi iogap_cpu0=$iogap_cpu
"$@"
status=$?
iogap_now
echo "iogap-rank-time: seconds=$(iogap_elapsed "$t0" "$u0")$(iogap_loaded)"
exit $status
