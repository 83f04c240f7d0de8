import { startSimulator } from '@voicegw/simulator';
import { answerMemoryRequests, serveUntilStopped } from './protocol.js';

/**
 * The FreeSWITCH simulator on free loopback ports, in a process of its own as FreeSWITCH would
 * be: it reports its control API port, and its event-socket port and password as info.
 */
const sim = await startSimulator({ eslPort: 0, httpPort: 0 });
answerMemoryRequests();
serveUntilStopped(sim.httpPort, () => sim.close(), {
  eslPort: String(sim.eslPort),
  password: sim.password,
});
