// Preloaded (`node --import`) into every Node process the launcher starts: the process ends when
// the launcher is gone, however it went — Ctrl-C, a crash, or SIGKILL from a supervisor, which
// no handler of the launcher's can see. Node has no PR_SET_PDEATHSIG; instead the launcher holds
// the other end of an IPC channel, which the kernel closes when the launcher exits, and Node
// reports that here as 'disconnect'. Production processes never load this (tools/ is dev only).
import { tetherToParent } from './tethered.js';

tetherToParent(() => process.kill(process.pid, 'SIGTERM'));
