// The simulator replays each recorded FreeSWITCH 1.10.12 scenario and must produce the same
// replies and, for every originated leg, the same events in the same order with the same key
// headers (the fixtures in fixtures/traces/, extracted from the recordings by
// fixtures/extract-traces.ts).
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from './fixtures/trace-fixture.js';
import { EslClient, startMediaServer, startTestSimulator, type Ev } from './helpers.js';
import { expectedLeg, keyHeaders, legEvents, loadFixture, replay } from './trace-replay.js';

/** Replies whose content is live data (uptime, channel dumps, B-leg uuids): shape only. */
function comparable(line: string): boolean {
  return !/^api (status|show |uuid_dump |uuid_getvar \S+ other_loopback_leg_uuid|conference \S+ json_list)/.test(
    line,
  );
}

/** The default profile's enter/exit tones and hold music are not simulated. */
const confSound = (e: Record<string, string>) => /^(local_stream|tone_stream):/.test(e.File ?? '');

// Sequential: each replay keeps the recording's timing, which concurrent replays on a busy
// machine would disturb. Some recorded orders hang on a few milliseconds (in e_record the next
// recording starts 994 ms after one limited to 1 s, and the limit's stop comes first): on a
// loaded host a late timer can swap such a pair, so a scenario gets one more replay before it
// fails.
describe('trace conformance', () => {
  for (const name of SCENARIOS) {
    it(
      `${name}: replies and per-leg event sequences match the recording`,
      { timeout: 60_000, retry: 1 },
      async () => {
        const fixture = loadFixture(name);
        const sim = await startTestSimulator();
        const media = await startMediaServer();
        const client = await EslClient.connect(sim.eslPort, {
          format: name === 'j_plain_format' ? 'plain' : 'json',
        });
        try {
          const result = await replay(fixture, client, media.base);
          for (const uuid of Object.keys(fixture.legs))
            await client.waitEvent('CHANNEL_DESTROY', uuid);
          if (fixture.conference.length > 0) {
            await client.waitFor((e) => e.Action === 'conference-destroy');
          }
          for (const { step, reply, jobResult } of result.replies) {
            if (step.kind === 'bgapi') expect(jobResult, step.line).toBe(step.jobResult);
            else if (!comparable(step.line)) expect(reply, step.line).toMatch(/\S/);
            else if (step.clipped)
              expect(reply.slice(0, step.reply?.length), step.line).toBe(step.reply);
            else expect(reply, step.line).toBe(step.reply);
          }
          for (const uuid of Object.keys(fixture.legs)) {
            expect(
              legEvents(client.events, uuid, fixture, result.normalize),
              `leg ${uuid}`,
            ).toEqual(expectedLeg(fixture, uuid));
          }
          const conf = (e: Ev) => e['Event-Subclass'] === 'conference::maintenance';
          const actual = client.events
            .filter(conf)
            .map((e) => ({
              ...keyHeaders(e, fixture, result.normalize),
              ...(e['Unique-ID'] ? { 'Unique-ID': e['Unique-ID'] } : {}),
            }))
            .filter((e) => !confSound(e));
          expect(actual).toEqual(fixture.conference.filter((e) => !confSound(e)));
        } finally {
          client.close();
          await media.close();
          await sim.close();
        }
      },
    );
  }
});
