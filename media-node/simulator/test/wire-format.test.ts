// Byte-level framing against the recordings: replies, bgapi, JSON and plain events, exit.
import { describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { fsUrlEncode, frameEvent, type FsEvent } from '../src/esl/event.js';
import { startTestSimulator } from './helpers.js';

/**
 * A raw socket reader: collects bytes and waits for a substring (`until`), or writes a request
 * and waits for a substring of its reply (`ask`); both resolve with everything read so far.
 */
function raw(port: number): {
  sock: Socket;
  until(s: string): Promise<string>;
  ask(request: string, reply: string): Promise<string>;
} {
  const sock = connect(port, '127.0.0.1');
  let buf = '';
  const waiters: Array<() => void> = [];
  sock.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    waiters.splice(0).forEach((w) => w());
  });
  const until = (s: string) =>
    new Promise<string>((resolve) => {
      const check = () => (buf.includes(s) ? resolve(buf) : waiters.push(check));
      check();
    });
  return {
    sock,
    until,
    ask: (request, reply) => {
      sock.write(request);
      return until(reply);
    },
  };
}

/**
 * Header values of plain-format events as FreeSWITCH 1.10.12 sent them in the recording of
 * scenario j (fixtures/traces/j_plain_format.json): the value, then its bytes on the wire. They
 * hold every character that recording's headers contain.
 */
const TRACE_J_PLAIN_VALUES: readonly (readonly [decoded: string, wire: string])[] = [
  ['2026-11-21 02:44:20', '2026-11-21%2002%3A44%3A20'],
  ['Sat, 21 Nov 2026 02:44:20 GMT', 'Sat,%2021%20Nov%202026%2002%3A44%3A20%20GMT'],
  ['"Outbound Call" <default>', '%22Outbound%20Call%22%20%3Cdefault%3E'],
  ['ARRAY::trace_park|:trace_park', 'ARRAY%3A%3Atrace_park%7C%3Atrace_park'],
  [
    'sendmsg bd578aa5-85c7-46d4-adcb-1e12f1a437f5',
    'sendmsg%20bd578aa5-85c7-46d4-adcb-1e12f1a437f5',
  ],
  [
    '{origination_uuid=bd578aa5-85c7-46d4-adcb-1e12f1a437f5,origination_caller_id_number=1000,' +
      'origination_caller_id_name=trace}loopback/trace_park/default &park()',
    '%7Borigination_uuid%3Dbd578aa5-85c7-46d4-adcb-1e12f1a437f5,origination_caller_id_number' +
      '%3D1000,origination_caller_id_name%3Dtrace%7Dloopback/trace_park/default%20%26park()',
  ],
  ['loopback/trace_park/default-a', 'loopback/trace_park/default-a'],
  ['switch_core_codec.c', 'switch_core_codec.c'],
  ['10.1.0.11', '10.1.0.11'],
];

describe('wire format', () => {
  it('URL-encodes plain values exactly as trace j shows', () => {
    for (const [decoded, wire] of TRACE_J_PLAIN_VALUES) expect(fsUrlEncode(decoded)).toBe(wire);
    expect(fsUrlEncode('{a=b}x/y &park()')).toBe('%7Ba%3Db%7Dx/y%20%26park()');
  });

  it('frames events with Content-Length first and a body after its own length', () => {
    const ev: FsEvent = {
      name: 'BACKGROUND_JOB',
      headers: [
        ['Event-Name', 'BACKGROUND_JOB'],
        ['Job-UUID', 'j'],
      ],
      body: '+OK x\n',
    };
    const json =
      '{"Event-Name":"BACKGROUND_JOB","Job-UUID":"j","Content-Length":"6","_body":"+OK x\\n"}';
    expect(frameEvent(ev, 'json')).toBe(
      `Content-Length: ${json.length}\nContent-Type: text/event-json\n\n${json}`,
    );
    const plain = 'Event-Name: BACKGROUND_JOB\nJob-UUID: j\nContent-Length: 6\n\n+OK x\n';
    expect(frameEvent(ev, 'plain')).toBe(
      `Content-Length: ${plain.length}\nContent-Type: text/event-plain\n\n${plain}`,
    );
  });

  it('greets, authenticates, answers bgapi with Job-UUID and says goodbye like FreeSWITCH', async () => {
    const sim = await startTestSimulator();
    const c = raw(sim.eslPort);
    expect(await c.until('\n\n')).toBe('Content-Type: auth/request\n\n');
    await c.ask('api status\n\n', '-ERR command not found');
    await c.ask('auth ClueCon\n\n', 'Reply-Text: +OK accepted\n\n');
    await c.ask('event json BACKGROUND_JOB\n\n', '+OK event listener enabled json\n\n');
    const out = await c.ask(
      'bgapi status\nJob-UUID: 11111111-2222-3333-4444-555555555555\n\n',
      '"_body"',
    );
    expect(out).toContain(
      'Content-Type: command/reply\nReply-Text: +OK Job-UUID: 11111111-2222-3333-4444-555555555555\nJob-UUID: 11111111-2222-3333-4444-555555555555\n\n',
    );
    expect(out).toMatch(
      /Content-Length: \d+\nContent-Type: text\/event-json\n\n\{"Event-Name":"BACKGROUND_JOB"/,
    );
    await c.ask('linger\n\n', '-ERR not controlling a session');
    const bye = await c.ask('exit\n\n', 'cluecon.com/\n');
    expect(bye).toContain(
      'Reply-Text: +OK bye\n\nContent-Type: text/disconnect-notice\nContent-Length: 67\n\nDisconnected, goodbye.\nSee you at ClueCon! http://www.cluecon.com/\n',
    );
    c.sock.destroy();
    await sim.close();
  });

  it('rejects a wrong password with -ERR invalid and closes', async () => {
    const sim = await startTestSimulator();
    const c = raw(sim.eslPort);
    await c.until('auth/request');
    const closed = new Promise<void>((r) => c.sock.on('close', () => r()));
    expect(await c.ask('auth nope\n\n', '-ERR invalid')).toContain('Reply-Text: -ERR invalid\n\n');
    await closed;
    await sim.close();
  });
});
