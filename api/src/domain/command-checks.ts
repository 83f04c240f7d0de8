import type { SessionCommandArgs, SessionCommandName } from '@voicegw/shared';
import type { ApiConfig } from '../config.js';
import { GatewayError } from '../errors/catalogue.js';
import { checkOutboundUrl, STREAM_URL } from './outbound-url.js';

/** What the checks read of the api's configuration. */
export type CheckConfig = Pick<
  ApiConfig,
  'RECORDING_MODE' | 'RECORDING_SERVICE_URL' | 'ALLOW_HTTP_WEBHOOKS' | 'ALLOW_LOCALHOST_WEBHOOKS'
>;

/**
 * A command's check in the api before its script run, beyond its schema: what depends on the
 * api's configuration or on the network. One that resolves host names (`resolvesHosts`) has the
 * request's rate limits counted before it runs, so that refused requests are limited like any
 * other and a flood of them cannot make the api resolve names without end.
 */
interface CommandCheck<C extends SessionCommandName> {
  readonly run: (body: SessionCommandArgs<C>, config: CheckConfig) => void | Promise<void>;
  readonly resolvesHosts: boolean;
}

const recordingAvailable: CommandCheck<'record/start'> = {
  run: (_body, { RECORDING_MODE: mode, RECORDING_SERVICE_URL: receiver }) => {
    // File mode needs no recording service: FreeSWITCH writes into the recordings volume.
    if (mode === 'off' || (mode === 'stream' && !receiver)) {
      throw new GatewayError('RECORDING_UNAVAILABLE');
    }
  },
  resolvesHosts: false,
};

/**
 * A bidirectional stream carries the caller's audio only, as Twilio's do: FreeSWITCH's module
 * plays the application's audio only into a one-track stream, and a two-track one sends nothing
 * while nothing else plays to the call. Then the media node connects to the stream's url: the
 * webhook_url rules, for ws and wss.
 */
const streamStart: CommandCheck<'stream/start'> = {
  run: async ({ url, bidirectional, track }, config) => {
    if (bidirectional && track !== 'inbound') throw new GatewayError('BIDIRECTIONAL_TRACK');
    const check = await checkOutboundUrl(url, STREAM_URL, {
      allowHttp: config.ALLOW_HTTP_WEBHOOKS,
      allowPrivate: config.ALLOW_LOCALHOST_WEBHOOKS,
    });
    if (!check.ok) throw new GatewayError('INVALID_STREAM_URL', { message: check.message });
  },
  resolvesHosts: true,
};

const CHECKS: { readonly [C in SessionCommandName]?: CommandCheck<C> } = {
  'record/start': recordingAvailable,
  'stream/start': streamStart,
};

/** The command's check, if it has one (generic over the command, so that it takes its body). */
export function commandCheck<C extends SessionCommandName>(
  command: C,
): CommandCheck<C> | undefined {
  return CHECKS[command];
}
