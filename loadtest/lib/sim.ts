import { fail } from 'k6';
import http from 'k6/http';
import { target } from './env.ts';
import { bodyText, client, expectStatus, field, jsonHeaders } from './http.ts';

/** The simulator's control API (docs/simulator.md): the "phone network" of `npm start`. */
const sim = client(target.simUrl);

/** Stops the run in setup() when the scenario needs the simulator and SIM_URL is empty. */
export function requireSimulator(scenario: string): void {
  if (!target.simUrl) {
    fail(`${scenario} places calls through the simulator's control API: set SIM_URL`);
  }
  const health = sim.get('/sim/health', { name: 'sim_health', headers: {} });
  if (health.status !== 200) {
    fail(`the simulator at ${target.simUrl} does not answer (${health.status} ${health.error})`);
  }
}

/** A random Israeli mobile number, the far end of a simulated call. */
export function randomMobile(): string {
  return `050${String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0')}`;
}

/** Places an inbound call to `to` (a DID routed to an app); its channel uuid, or '' on failure. */
export function placeCall(to: string, from = randomMobile()): string {
  const res = sim.post(
    '/sim/calls',
    { to, from },
    { name: 'sim_place_call', headers: jsonHeaders() },
  );
  return expectStatus(res, 201, 'place inbound call') ? field(res, 'uuid') : '';
}

/** Places several inbound calls at once (setup); their uuids, '' for those that failed. */
export function placeCalls(calls: ReadonlyArray<{ readonly to: string }>): string[] {
  const responses = http.batch(
    calls.map((call) => ({
      method: 'POST',
      url: `${target.simUrl}/sim/calls`,
      body: JSON.stringify({ to: call.to, from: randomMobile() }),
      params: { headers: jsonHeaders(), tags: { name: 'sim_place_call' } },
    })),
  );
  return responses.map((res) => (res.status === 201 ? field(res, 'uuid') : ''));
}

export type NumberBehavior = 'answer' | 'busy' | 'no_answer' | 'reject' | 'unavailable' | 'fail';

/** How a dialled number answers (default of the simulator: rings 1 s, answers). */
export function setNumber(number: string, behavior: NumberBehavior, ringMs: number): void {
  const res = sim.put(
    `/sim/numbers/${number}`,
    { behavior, ring_ms: ringMs, early_media: false },
    { name: 'sim_number', headers: jsonHeaders() },
  );
  if (!expectStatus(res, 200, 'configure simulated number'))
    fail(`number ${number}: ${bodyText(res)}`);
}
