import type { FreeswitchState } from '@voicegw/shared';
import type { EslClient } from './client.js';

/**
 * Whether dials can work: DIAL_STRING_TEMPLATE's `sofia/gateway/<name>/` must name a gateway
 * FreeSWITCH has, or every dial fails at once (`[ERR] Invalid Gateway`, INVALID_GATEWAY). Other
 * templates (loopback, sofia/<profile>/…) cannot be checked in advance and count as usable.
 */
export type DialTarget =
  | { readonly usable: true; readonly gateway?: string }
  | { readonly usable: false; readonly gateway: string; readonly problem: string };

export function dialGateway(template: string): string | undefined {
  return /^sofia\/gateway\/([^/]+)\//.exec(template)?.[1];
}

/** Asks FreeSWITCH about the template's gateway (mod_sofia answers `Invalid Gateway!` if none). */
export async function checkDialTarget(esl: EslClient, template: string): Promise<DialTarget> {
  const gateway = dialGateway(template);
  if (gateway === undefined) return { usable: true };
  const reply = (await esl.api(`sofia status gateway ${gateway}`)).trim();
  if (reply.startsWith('Invalid Gateway')) {
    return {
      usable: false,
      gateway,
      problem:
        `FreeSWITCH has no sofia gateway "${gateway}", which DIAL_STRING_TEMPLATE dials: ` +
        'configure the SIP trunk (docs/operations.md, "SIP trunk")',
    };
  }
  // mod_sofia not loaded answers `-ERR sofia Command not found!`.
  if (reply.startsWith('-ERR')) {
    return { usable: false, gateway, problem: `sofia status gateway ${gateway}: ${reply}` };
  }
  return { usable: true, gateway };
}

/** What the heartbeat and /health say about this node's FreeSWITCH. */
export function freeswitchState(connected: boolean, dialTarget: DialTarget): FreeswitchState {
  if (!connected) return 'unreachable';
  return dialTarget.usable ? 'ok' : 'dial_target_unusable';
}
