import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  clearFrame,
  markFrame,
  mediaFrame,
  parseStreamFrame,
  StreamFrameError,
  verifyStreamUpgrade,
  WebhookVerificationError,
  type StreamFrame,
  type StreamFrameToApp,
} from '../src/index.js';

// The media-stream helpers on the frames of docs/media-streams.md, in voicegw's merged form and
// in each vendor's own, and the upgrade signature computed here with node:crypto as the
// document states it, independently of the helper.

const uuid = '4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const sid = 'MZ4f1c2d3e5a6b4c7d8e9f0a1b2c3d4e5f';
const ids = (n: number) => ({
  sequenceNumber: String(n),
  sequence_number: String(n),
  streamSid: sid,
  stream_id: uuid,
});
const payload = Buffer.alloc(160, 0xff).toString('base64');

/** Every frame voicegw sends, as the spec writes them. */
const gatewayFrames: StreamFrameToApp[] = [
  { event: 'connected', protocol: 'Call', version: '1.0.0' },
  {
    event: 'start',
    ...ids(1),
    start: {
      streamSid: sid,
      accountSid: `AC${'a'.repeat(32)}`,
      callSid: 'CA9b87c6dd00004000800000000000000',
      tracks: ['inbound'],
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      customParameters: { lang: 'en' },
      call_control_id: 'z7kva-9b87c6dd-0000-4000-8000-000000000000',
      call_session_id: 'z7kva-9b87c6dd-0000-4000-8000-000000000000',
      user_id: 'demo',
      from: '0501112222',
      to: '0733000000',
      media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
      custom_parameters: { lang: 'en' },
      session_uuid: 'z7kva-9b87c6dd-0000-4000-8000-000000000000',
      app_id: 'demo',
      bidirectional: true,
    },
  },
  {
    event: 'media',
    ...ids(2),
    media: { track: 'inbound', chunk: '1', timestamp: '0', payload },
  },
  {
    event: 'dtmf',
    ...ids(9),
    occurred_at: '2026-01-01T00:00:00.000Z',
    dtmf: { track: 'inbound_track', digit: '1' },
  },
  { event: 'mark', ...ids(10), mark: { name: 'greeting-end' } },
  {
    event: 'stop',
    ...ids(11),
    stop: {
      accountSid: `AC${'a'.repeat(32)}`,
      callSid: 'CA9b87c6dd00004000800000000000000',
      user_id: 'demo',
      call_control_id: 'z7kva-9b87c6dd-0000-4000-8000-000000000000',
      reason: 'stopped',
    },
  },
];

/** The same events as Twilio sends them (its documentation's examples, our values). */
const twilioFrames = [
  { event: 'connected', protocol: 'Call', version: '1.0.0' },
  {
    event: 'start',
    sequenceNumber: '1',
    start: {
      accountSid: 'AC123',
      streamSid: sid,
      callSid: 'CA123',
      tracks: ['inbound', 'outbound'],
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      customParameters: { FirstName: 'Jane' },
    },
    streamSid: sid,
  },
  {
    event: 'media',
    sequenceNumber: '4',
    media: { track: 'outbound', chunk: '2', timestamp: '5', payload },
    streamSid: sid,
  },
  {
    event: 'dtmf',
    streamSid: sid,
    sequenceNumber: '5',
    dtmf: { track: 'inbound_track', digit: '#' },
  },
  { event: 'mark', sequenceNumber: '4', streamSid: sid, mark: { name: 'my label' } },
  {
    event: 'stop',
    sequenceNumber: '5',
    stop: { accountSid: 'AC123', callSid: 'CA123' },
    streamSid: sid,
  },
];

/** And as Telnyx sends them. */
const telnyxFrames = [
  { event: 'connected', version: '1.0.0' },
  {
    event: 'start',
    sequence_number: '1',
    start: {
      user_id: 'u1',
      call_control_id: 'v3:abc',
      call_session_id: 'ff55',
      from: '+13122010094',
      to: '+13122123456',
      media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
    },
    stream_id: uuid,
  },
  {
    event: 'media',
    sequence_number: '4',
    media: { track: 'inbound', chunk: '2', timestamp: '5', payload },
    stream_id: uuid,
  },
  {
    event: 'dtmf',
    stream_id: uuid,
    occurred_at: '2025-06-05T08:54:19.698408Z',
    sequence_number: '5',
    dtmf: { digit: '1' },
  },
  { event: 'mark', stream_id: uuid, sequence_number: '5', mark: { name: 'some_mark_name' } },
  {
    event: 'stop',
    sequence_number: '5',
    stop: { user_id: 'u1', call_control_id: 'v3:abc' },
    stream_id: uuid,
  },
];

describe('parseStreamFrame', () => {
  it.each(gatewayFrames.map((frame) => [frame.event, frame] as const))(
    "parses voicegw's %s frame as sent",
    (_event, frame) => {
      expect(parseStreamFrame(JSON.stringify(frame))).toEqual(frame);
      expect(parseStreamFrame(new TextEncoder().encode(JSON.stringify(frame)))).toEqual(frame);
    },
  );

  it.each(twilioFrames.map((frame) => [frame.event, frame] as const))(
    "parses Twilio's %s frame",
    (_event, frame) => expect(parseStreamFrame(JSON.stringify(frame))).toEqual(frame),
  );

  it.each(telnyxFrames.map((frame) => [frame.event, frame] as const))(
    "parses Telnyx's %s frame",
    (_event, frame) => expect(parseStreamFrame(JSON.stringify(frame))).toEqual(frame),
  );

  it('narrows by event, with either naming of the ids', () => {
    const frame = parseStreamFrame(JSON.stringify(gatewayFrames[2]));
    if (frame.event !== 'media') throw new Error('not narrowed');
    expectTypeOf(frame.media.payload).toEqualTypeOf<string>();
    expectTypeOf(frame.streamSid).toEqualTypeOf<string | undefined>();
    expectTypeOf(frame.stream_id).toEqualTypeOf<string | undefined>();
    expect(frame.streamSid ?? frame.stream_id).toBe(sid);
    expectTypeOf<StreamFrameToApp>().toMatchTypeOf<StreamFrame>();
  });

  it.each([
    ['not JSON', '{"event":"media"', 'not_json', undefined],
    ['an empty text', '', 'not_json', undefined],
    ['an array', '[1]', 'not_an_object', undefined],
    ['null', 'null', 'not_an_object', undefined],
    ['a string', '"media"', 'not_an_object', undefined],
    [
      'an unknown event',
      '{"event":"error","stream_id":"x","sequence_number":"1"}',
      'unknown_event',
      undefined,
    ],
    ['no event', '{"streamSid":"MZ1","sequenceNumber":"1"}', 'unknown_event', undefined],
    [
      'an application frame (clear)',
      JSON.stringify({ event: 'clear', streamSid: sid }),
      'unknown_event',
      undefined,
    ],
    [
      'connected without version',
      '{"event":"connected","protocol":"Call"}',
      'bad_field',
      'version',
    ],
    [
      'no stream id in either naming',
      JSON.stringify({ event: 'mark', sequenceNumber: '1', mark: { name: 'x' } }),
      'bad_field',
      'streamSid',
    ],
    [
      'no sequence number in either naming',
      JSON.stringify({ event: 'mark', streamSid: sid, mark: { name: 'x' } }),
      'bad_field',
      'sequenceNumber',
    ],
    [
      'a numeric sequence number',
      JSON.stringify({ event: 'mark', ...ids(1), sequence_number: 1, mark: { name: 'x' } }),
      'bad_field',
      'sequence_number',
    ],
    [
      'media without its object',
      JSON.stringify({ event: 'media', ...ids(2) }),
      'bad_field',
      'media',
    ],
    [
      'media without a payload',
      JSON.stringify({
        event: 'media',
        ...ids(2),
        media: { track: 'inbound', chunk: '1', timestamp: '0' },
      }),
      'bad_field',
      'media.payload',
    ],
    [
      'media on an unknown track',
      JSON.stringify({
        event: 'media',
        ...ids(2),
        media: { track: 'both', chunk: '1', timestamp: '0', payload },
      }),
      'bad_field',
      'media.track',
    ],
    [
      'a mark without a name',
      JSON.stringify({ event: 'mark', ...ids(3), mark: {} }),
      'bad_field',
      'mark.name',
    ],
    [
      'dtmf without a digit',
      JSON.stringify({ event: 'dtmf', ...ids(3), dtmf: { track: 'inbound_track' } }),
      'bad_field',
      'dtmf.digit',
    ],
    [
      'start without its object',
      JSON.stringify({ event: 'start', ...ids(1), start: [] }),
      'bad_field',
      'start',
    ],
  ])('rejects %s with a StreamFrameError', (_what, text, reason, field) => {
    let error: unknown;
    try {
      parseStreamFrame(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StreamFrameError);
    expect(error).toMatchObject({ reason, field });
  });
});

describe('frame builders', () => {
  it('build the Twilio frames an application sends, exactly', () => {
    expect(mediaFrame(sid, payload)).toBe(
      `{"event":"media","streamSid":"${sid}","media":{"payload":"${payload}"}}`,
    );
    expect(markFrame(sid, 'greeting-end')).toBe(
      `{"event":"mark","streamSid":"${sid}","mark":{"name":"greeting-end"}}`,
    );
    expect(clearFrame(sid)).toBe(`{"event":"clear","streamSid":"${sid}"}`);
  });

  it('build the Telnyx form without a streamSid', () => {
    expect(mediaFrame(undefined, 'AAAA')).toBe('{"event":"media","media":{"payload":"AAAA"}}');
    expect(markFrame(undefined, 'x')).toBe('{"event":"mark","mark":{"name":"x"}}');
    expect(clearFrame(undefined)).toBe('{"event":"clear"}');
  });

  it('escape what JSON must', () => {
    expect(JSON.parse(markFrame(sid, 'say "hi"\n'))).toEqual({
      event: 'mark',
      streamSid: sid,
      mark: { name: 'say "hi"\n' },
    });
  });
});

describe('verifyStreamUpgrade', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const url = 'wss://agent.example.com/media?lang=en';

  /** The upgrade headers as docs/media-streams.md states them, signed with node:crypto. */
  function headers(
    options: { key?: string; signedUrl?: string; at?: number; id?: string } = {},
  ): Record<string, string> {
    const {
      key = secret,
      signedUrl = url,
      at = Math.floor(Date.now() / 1000),
      id = uuid,
    } = options;
    const hmac = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'));
    const signature = hmac.update(`${id}.${at}.${signedUrl}`).digest('base64');
    return {
      'webhook-id': id,
      'webhook-timestamp': String(at),
      'webhook-signature': `v1,${signature}`,
      'x-voicegw-session-uuid': 'z7kva-9b87c6dd-0000-4000-8000-000000000000',
      'x-voicegw-stream-id': id,
    };
  }
  const verify = (
    h: Record<string, string | undefined>,
    extra: { toleranceSeconds?: number } = {},
  ) => verifyStreamUpgrade({ headers: h, url, secret, ...extra });

  it('accepts a request signed with the secret over id, timestamp and url', () => {
    const h = headers();
    const verified = verify(h);
    expect(verified.streamId).toBe(uuid);
    expect(verified.signedAt.getTime()).toBe(Number(h['webhook-timestamp']) * 1000);
  });

  it('accepts fetch Headers, and one matching signature among several', () => {
    const h = headers();
    const other = headers({ key: `whsec_${randomBytes(32).toString('base64')}` });
    h['webhook-signature'] = `${other['webhook-signature']} ${h['webhook-signature']}`;
    expect(verifyStreamUpgrade({ headers: new Headers(h), url, secret }).streamId).toBe(uuid);
  });

  it('accepts a timestamp within a tolerance given', () => {
    const at = Math.floor(Date.now() / 1000) - 400;
    expect(verify(headers({ at }), { toleranceSeconds: 600 }).streamId).toBe(uuid);
  });

  it.each([
    ['a tampered url', () => headers({ signedUrl: 'wss://agent.example.com/media?lang=fr' })],
    ['a url without its last character', () => headers({ signedUrl: url.slice(0, -1) })],
    ['another secret', () => headers({ key: `whsec_${randomBytes(32).toString('base64')}` })],
    ['a timestamp 10 minutes old', () => headers({ at: Math.floor(Date.now() / 1000) - 600 })],
    ['a timestamp 10 minutes ahead', () => headers({ at: Math.floor(Date.now() / 1000) + 600 })],
    ['another stream id than signed', () => ({ ...headers(), 'webhook-id': randomUUID() })],
    ['a timestamp that is not a number', () => ({ ...headers(), 'webhook-timestamp': 'soon' })],
    ['no signature', () => ({ ...headers(), 'webhook-signature': undefined })],
    ['no id', () => ({ ...headers(), 'webhook-id': undefined })],
    [
      'a signature of another version',
      () => {
        const h = headers();
        return { ...h, 'webhook-signature': h['webhook-signature']!.replace('v1,', 'v2,') };
      },
    ],
  ])('refuses %s with WebhookVerificationError', (_what, make) => {
    expect(() => verify(make())).toThrow(WebhookVerificationError);
  });

  it('refuses a timestamp 400 s old with the default tolerance of 5 minutes', () => {
    const at = Math.floor(Date.now() / 1000) - 400;
    expect(() => verify(headers({ at }))).toThrow(WebhookVerificationError);
    expect(verify(headers({ at: at + 120 })).streamId).toBe(uuid);
  });
});
