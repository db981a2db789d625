'''The scratch guard inside a job: check the root, make the test's directory
and remove it on any exit, end the job when reframe dies, and take the I/O
lock of the root's device: runs on one disk never measure at once.'''

import shlex

from iogap.core.scratch import DIR_PREFIX, MARKER, RUN_LOCK

#: Where the host's I/O locks live (one per device), the first writable
IO_LOCK_DIRS = ('/run/lock', '/var/lock', '/tmp')


def job_guard(root, tag, watch_pid=None, io_lock=False, lock_id=None,
              lock_wait=None):
    '''The guard's lines: ``watch_pid`` reframe's, ``io_lock`` waited for
    ``lock_wait`` s, ``lock_id`` the ``dev:inode`` of the root's run lock.'''
    lines = [
        *_root_lines(root, lock_id),
        'IOGAP_DIR= iogap_watchdog= iogap_signal=',
        # Until the directory is made and named, a signal is only noted:
        # one acted on between the two left the directory behind
        "trap 'iogap_signal=143' TERM; trap 'iogap_signal=130' INT; "
        "trap 'iogap_signal=129' HUP",
        # errexit holds inside traps too: nothing here may fail. The lock
        # closes first: on NFS an open file keeps the directory
        'trap \'trap "" TERM INT HUP; exec 8<&-; [ -z "$IOGAP_DIR" ] || '
        'rm -rf "$IOGAP_DIR"; [ -z "$iogap_watchdog" ] || kill '
        '$iogap_watchdog 2>/dev/null || :; [ -z "${iogap_held:-}" ] || '
        'echo "iogap-io-released: at=$(date +%s.%N)"\' EXIT',
        # mktemp, deaf to the signals, names what it made
        f'IOGAP_DIR=$(trap "" TERM INT HUP; mktemp -d "$iogap_root/'
        f'{DIR_PREFIX}{tag}.XXXXXX") || iogap_fail "cannot create a '
        f'directory in $iogap_root"',
        "trap 'exit 143' TERM; trap 'exit 130' INT; trap 'exit 129' HUP",
        '[ -z "$iogap_signal" ] || exit "$iogap_signal"',
    ]
    if watch_pid:
        # Ends the job's group once reframe is gone
        lines += [f'(while kill -0 {watch_pid} 2>/dev/null; do sleep 1; '
                  'done; kill -TERM -- -$$ 2>/dev/null) >/dev/null 2>&1 &',
                  'iogap_watchdog=$!']
    lines += [
        'echo "host=$(uname -n) pid=$$ start=$(date +%s)" > '
        '"$IOGAP_DIR/.owner"',
        # Held while the job lives: no run removes its directory
        'exec 8<"$IOGAP_DIR/.owner"; flock -s -n 8 2>/dev/null || :',
        'echo "iogap-scratch: $IOGAP_DIR"',
    ]
    return lines + (io_lock_lines(lock_wait) if io_lock else [])


def _root_lines(root, lock_id=None):
    '''Lines that stop the job unless ``root`` is (or is made) the suite's.'''
    lines = [
        'set -o errexit -o pipefail',
        f'iogap_root={shlex.quote(root)}',
        'iogap_fail() { echo "iogap: $*" >&2; exit 3; }',
    ]
    if lock_id:
        lines.append(f'[ "$(stat -c %d:%i "$iogap_root/{RUN_LOCK}" '
                     f'2>/dev/null)" = {lock_id} ] || iogap_fail "scratch '
                     f'root $iogap_root is not the one this run locked: '
                     f'removed during the run"')
    else:   # a root missing on this node is made, as on reframe's host
        lines += [
            'if [ ! -e "$iogap_root" ] && [ -d "$(dirname "$iogap_root")" ] '
            '&& mkdir -m 700 "$iogap_root" 2>/dev/null; then',
            f'  : > "$iogap_root/{MARKER}"; echo "iogap: created scratch '
            f'root $iogap_root, marked {MARKER} as the suite\'s" >&2',
            'fi']
    return lines + [
        '[ -e "$iogap_root" ] || iogap_fail "scratch root $iogap_root does '
        'not exist"',
        '[ -d "$iogap_root" ] || iogap_fail "scratch root $iogap_root is not '
        'a directory"',
        '[ -O "$iogap_root" ] || iogap_fail "scratch root $iogap_root is not '
        'yours"',
        f'if [ ! -e "$iogap_root/{MARKER}" ]; then',
        f'  [ -z "$(ls -A "$iogap_root" | grep -v -e "^{DIR_PREFIX}" -e '
        f'"^\\.iogap-" -e "^lost+found$")" ] || iogap_fail "scratch root '
        f'$iogap_root holds files that are not the suite\'s"',
        f'  : > "$iogap_root/{MARKER}" 2>/dev/null || iogap_fail "scratch '
        f'root $iogap_root is not writable"',
        'fi',
    ]


def io_lock_lines(wait=None):
    '''Lines taking the I/O lock of the root's device (``wait`` s at most).'''
    return [
        'iogap_dev=$((16#$(stat -c %D "$iogap_root")))',
        'iogap_dev="$(( (iogap_dev >> 8) & 0xfff | (iogap_dev >> 32) & '
        '~0xfff )):$(( iogap_dev & 0xff | (iogap_dev >> 12) & ~0xff ))"',
        f'for iogap_lock in {" ".join(IO_LOCK_DIRS)}; do',
        '  [ ! -w "$iogap_lock" ] || break',
        'done',
        'iogap_lock="$iogap_lock/iogap-io-$iogap_dev.lock"',
        'exec 9>>"$iogap_lock" || iogap_fail "cannot open the I/O lock '
        '$iogap_lock"',
        'iogap_waited=$SECONDS',
        'if ! flock -n 9; then',
        # The holder names itself just after locking: wait for a live one
        '  for iogap_try in 1 2 3 4 5 6 7 8 9 10; do',
        '    iogap_holder="$(cat "$iogap_lock.holder" 2>/dev/null || :)"',
        '    iogap_pid="${iogap_holder#pid=}"; iogap_pid="${iogap_pid%% *}"',
        '    [ -z "$iogap_pid" ] || ! kill -0 "$iogap_pid" 2>/dev/null || '
        'break',
        '    sleep 0.2',
        '  done',
        '  echo "iogap: waiting for the I/O lock of device $iogap_dev '
        '($iogap_root), held by ${iogap_holder:-another job}" >&2',
        f'  flock {f"-w {wait} " if wait else ""}9 || iogap_fail "could not '
        f'take the I/O lock of device $iogap_dev ($iogap_lock) in '
        f'{wait or "?"} s: held by $(cat "$iogap_lock.holder" 2>/dev/null '
        f'|| echo another job)"',
        'fi',
        'iogap_held=1',
        # written whole, then renamed, so a waiter never reads half of it
        'echo "pid=$$ root=$iogap_root job=$PWD since=$(date +%FT%T)" > '
        '"$iogap_lock.holder.$$" && mv -f "$iogap_lock.holder.$$" '
        '"$iogap_lock.holder" 2>/dev/null || rm -f "$iogap_lock.holder.$$"',
        'echo "iogap-io-lock: device=$iogap_dev lock=$iogap_lock '
        'waited=$((SECONDS - iogap_waited))s at=$(date +%s.%N)"',
    ]


def scratch_dirs(text):
    return [line.split(' ', 1)[1] for line in text.splitlines()
            if line.startswith('iogap-scratch: ')]
