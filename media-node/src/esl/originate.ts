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

/** A SIP leg one media node dials to another's FreeSWITCH (a bridge's, a remote room member's). */
export interface NodeLeg {
  /** The leg's channel UUID (origination_uuid). */
  readonly uuid: string;
  /** The dial string, its template filled in. */
  readonly target: string;
  /** The session's caller ID, shown on the other node's side (sanitised to what SIP takes). */
  readonly callerId: string;
  /** X- headers of the INVITE, by name (sip_h_ variables): whose leg it is. */
  readonly headers: Readonly<Record<string, string>>;
  /** Further channel variables, `name=value`. */
  readonly variables?: readonly string[];
}

/**
 * The originate arguments of a node-to-node leg: parked on answer, given up at `deadline` (whole
 * seconds, at least one, as originate_timeout counts).
 */
export function nodeLegArgs(leg: NodeLeg, deadline: number): string {
  const vars = [
    `origination_uuid=${leg.uuid}`,
    `origination_caller_id_number=${leg.callerId.replace(/[^\w+]/g, '') || 'voicegw'}`,
    `originate_timeout=${Math.max(1, Math.ceil((deadline - Date.now()) / 1000))}`,
    ...Object.entries(leg.headers).map(([name, value]) => `sip_h_${name}=${value}`),
    ...(leg.variables ?? []),
  ];
  return `{${vars.join(',')}}${leg.target} &park()`;
}
