// The simulator replays each recorded mod_audio_stream scenario (FreeSWITCH 1.10.12, the
// fixtures in fixtures/stream-traces/ made by fixtures/extract-stream-traces.ts): the same
// commands at the recording's pace over a real event socket, a real WebSocket server (or the
// recording's raw TCP servers) as the module's peer doing what the test server did. It must give
// the same replies, the same stream events per leg, and the same WebSocket facts.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_REPLAYED, OPEN_DIFFERENCES, STREAM_SCENARIOS } from './fixtures/stream-scenarios.js';
import type { StreamFixture } from './fixtures/stream-trace-fixture.js';
import { EslClient, startTestSimulator } from './helpers.js';
import { replayStream } from './stream-trace-replay.js';

const load = (name: string) =>
  JSON.parse(
    readFileSync(join(import.meta.dirname, 'fixtures', 'stream-traces', `${name}.json`), 'utf8'),
  ) as StreamFixture;

// Concurrent: each replay keeps the recording's timing (up to 28 s) on its own simulator.
describe.concurrent('mod_audio_stream trace conformance', () => {
  for (const name of STREAM_SCENARIOS) {
    const fixture = load(name);
    const skipped = NOT_REPLAYED[name] ?? OPEN_DIFFERENCES[name];
    const test = fixture.replay && skipped === undefined ? it : it.skip;
    const recorded = fixture.steps.reduce((ms, step) => ms + step.gap, 0);
    const title = `${name}: replies, stream events and WebSocket facts match`;
    test(
      skipped === undefined ? title : `${title} (skipped: ${skipped})`,
      { timeout: recorded + 30_000 },
      async () => {
        const sim = await startTestSimulator();
        const client = await EslClient.connect(sim.eslPort);
        try {
          const got = await replayStream(fixture, sim, client, randomUUID);
          for (const { step, reply } of got.replies) expect(reply, step.esl).toBe(step.reply);
          expect(got.legs, 'events per leg').toEqual(fixture.legs);
          expect(got.ws.length, 'connections').toBe(fixture.ws.length);
          fixture.ws.forEach((want, i) => {
            const have = got.ws[i]!;
            const at = `connection ${i + 1}`;
            expect(have.path, at).toBe(want.path);
            expect(have.headers, at).toEqual(want.headers);
            expect(have.texts, at).toEqual(want.texts);
            expect(have.closes, at).toEqual(want.closes);
            expect(have.pings, at).toBe(want.pings);
            expect([...have.binary.sizes].sort(), at).toEqual([...want.binary.sizes].sort());
            const { count, p50Ms, maxGapMs } = want.binary;
            if (count === 0) expect(have.binary.count, at).toBe(0);
            else
              expect(Math.abs(have.binary.count - count), at).toBeLessThanOrEqual(
                Math.max(3, count * 0.15),
              );
            if (count > 10 && p50Ms !== undefined)
              expect(Math.abs((have.binary.p50Ms ?? 0) - p50Ms), at).toBeLessThan(3);
            // A hole (pause, a blocked socket thread) is there too.
            if (maxGapMs !== undefined && maxGapMs > 500)
              expect(have.binary.maxGapMs ?? 0, at).toBeGreaterThan(maxGapMs * 0.7);
          });
        } finally {
          client.close();
          await sim.close();
        }
      },
    );
  }
});
