import { randomUUID } from 'node:crypto';
import type { EslClient } from './client.js';
import type { EventRouter } from './router.js';

/** What originateJob resolves with when the job has not answered by its deadline. */
export const ORIGINATE_TIMED_OUT = '-ERR not answered in time';

/**
 * `bgapi originate <args>` with a Job-UUID of our own: resolves with its BACKGROUND_JOB's body
 * (`+OK <uuid>` once the far end answered or sent early media, `-ERR <CAUSE>`), or with
 * ORIGINATE_TIMED_OUT at `deadline` (epoch ms). Rejects when FreeSWITCH refuses the
 * bgapi itself.
 */
export async function originateJob(
  esl: EslClient,
  router: EventRouter,
  args: string,
  deadline: number,
): Promise<string> {
  const jobUuid = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  const job = new Promise<string>((resolve) => {
    router.expectJob(jobUuid, (event) => resolve(event.body.trim()));
    timer = setTimeout(() => resolve(ORIGINATE_TIMED_OUT), Math.max(0, deadline - Date.now()));
  });
  try {
    const reply = await esl.bgapi(`originate ${args}`, jobUuid);
    if (!reply.startsWith('+OK')) throw new Error(`originate refused: ${reply.trim()}`);
    return await job;
  } finally {
    clearTimeout(timer);
    router.forgetJob(jobUuid);
  }
}
