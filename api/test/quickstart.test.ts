import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { curlAvailable, curlMissingMessage, freePorts } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// docs/quickstart.md is the single source: this test runs its shell blocks and the scripts it
// includes (the receiver, the echo agent), against `npm start`, with the documented ports swapped
// for free ones. Its media-stream section (from "## 7.") is the second test.

const root = resolve(import.meta.dirname, '../..');
const doc = readFileSync(join(root, 'docs/quickstart.md'), 'utf8');
const receiverFile = readFileSync(join(root, 'docs/quickstart/receiver.mjs'), 'utf8');
const agentFile = readFileSync(join(root, 'docs/quickstart/echo-agent.mjs'), 'utf8');
const streamSection = doc.indexOf('\n## 7. ');
const blocks = [...doc.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((match) => ({
  lang: match[1] ?? '',
  code: match[2] ?? '',
  streams: streamSection >= 0 && match.index > streamSection,
}));
const shell = blocks.filter((block) => block.lang === 'sh');
const launcherBlock = shell.find((block) => block.code.includes('npm start'))?.code ?? '';
const receiverBlock = shell.find((block) => block.code.includes('receiver.mjs'))?.code ?? '';
const agentBlock = shell.find((block) => block.code.includes('echo-agent.mjs'))?.code ?? '';
const terminals = [launcherBlock, receiverBlock, agentBlock];
const steps = shell
  .filter((block) => !block.streams && !terminals.includes(block.code))
  .map((block) => block.code);
const streamSteps = shell
  .filter((block) => block.streams && !terminals.includes(block.code))
  .map((block) => block.code);
/** How long `npm start` may take to report both processes healthy. */
const STARTUP_MS = 60_000;

/** A process group started here (so that stopping it is Ctrl-C in its terminal), with its output. */
class Terminal {
  output = '';
  readonly process: ChildProcess;
  constructor(command: string, env: NodeJS.ProcessEnv) {
    this.process = spawn('bash', ['-c', command], { cwd: root, env, detached: true });
    for (const stream of [this.process.stdout, this.process.stderr])
      stream?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }
  async stop(): Promise<void> {
    const { pid, exitCode } = this.process;
    if (pid === undefined || exitCode !== null) return;
    const exited = new Promise((r) => this.process.once('exit', r));
    process.kill(-pid, 'SIGINT');
    const timer = setTimeout(() => process.kill(-pid, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

describe('docs/quickstart.md, run as written against npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voicegw-quickstart-'));
  const state = join(dataDir, 'shell-state.sh');
  const ports = new Map<string, number>();
  let gateway: Terminal;
  let receiver: Terminal;
  let agent: Terminal | undefined;

  /** One documented shell step in bash, variables kept from the steps before, as in one terminal. */
  const run = (code: string): string => {
    let script = code;
    for (const [documented, port] of ports)
      script = script.replaceAll(documented, `127.0.0.1:${port}`);
    const names = [...script.matchAll(/^([A-Z_]+)=/gm)].map(([, name]) => name).join(' ');
    const result = spawnSync(
      'bash',
      [
        '-c',
        `set -eo pipefail; . "${state}"\n${script}\n${names ? `declare -p ${names} >> "${state}"` : ''}`,
      ],
      { cwd: root, encoding: 'utf8', timeout: 15_000 },
    );
    if (result.status !== 0) throw new Error(`step failed: ${script}\n${result.stderr}`);
    return result.stdout;
  };
  /** Polls `probe` until it gives a value; on timeout the error shows what both terminals said. */
  const until = async <T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> => {
    const value = await vi
      .waitFor(
        () => {
          const got = probe();
          if (got === undefined) throw new Error(`no ${what} yet`);
          return got;
        },
        { timeout: ms, interval: 100 },
      )
      .catch(() => undefined);
    if (value !== undefined) return value;
    const tail = (terminal: Terminal | undefined): string => terminal?.output.slice(-3000) ?? '';
    throw new Error(
      `timed out waiting for ${what}\n--- npm start\n${tail(gateway)}\n--- receiver\n${tail(receiver)}` +
        (agent ? `\n--- echo agent\n${tail(agent)}` : ''),
    );
  };
  /** A terminal's log lines `<name> <json>`: the receiver's events, the echo agent's frames. */
  const logged = (terminal: Terminal, name: string): Array<Record<string, unknown>> =>
    terminal.output
      .split('\n')
      .filter((line) => line.startsWith(`${name} {`))
      .map((line) => JSON.parse(line.slice(name.length + 1)) as Record<string, unknown>);
  const received = (name: string): Array<Record<string, unknown>> => logged(receiver, name);

  beforeAll(async () => {
    // The test setup installs curl where it can (provisionCurl); elsewhere, say how to get it
    // rather than fail at the first step with `curl: command not found`.
    if (!curlAvailable()) throw new Error(curlMissingMessage());
    writeFileSync(state, '');
    const { api, sim, simEsl, simSip, media, recording, dispatcher, hook, echo } = await freePorts(
      'api',
      'sim',
      'simEsl',
      'simSip',
      'media',
      'recording',
      'dispatcher',
      'hook',
      'echo',
    );
    ports.set('127.0.0.1:8080', api).set('127.0.0.1:8090', sim).set('127.0.0.1:9464', media);
    ports.set('127.0.0.1:3000', hook).set('127.0.0.1:3001', echo);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['REDIS_URL', 'FS_ESL_HOST', 'KAFKA_BROKERS', 'EVENT_BUS', 'ADMIN_API_KEY'])
      delete env[name];
    gateway = new Terminal(launcherBlock.trim(), {
      ...env,
      PORT: String(api),
      SIM_HTTP_PORT: String(sim),
      SIM_ESL_PORT: String(simEsl),
      SIM_SIP_PORT: String(simSip),
      MEDIA_METRICS_PORT: String(media),
      RECORDING_PORT: String(recording),
      DISPATCHER_METRICS_PORT: String(dispatcher),
      DATA_DIR: dataDir,
    });
    receiver = new Terminal(receiverBlock.trim(), {
      ...env,
      PORT: String(hook),
      API: `http://127.0.0.1:${api}`,
    });
    // The receiver's block builds the SDK first (tsc), which a loaded host takes a while for.
    await until(
      'the receiver',
      () => (receiver.output.includes('receiver on') ? true : undefined),
      STARTUP_MS,
    );
    // Terminal 4 of section 7, once the SDK it imports is built.
    agent = new Terminal(agentBlock.trim(), { ...env, PORT: String(echo) });
    await until('the echo agent', () =>
      agent?.output.includes('echo agent on') ? true : undefined,
    );
  }, STARTUP_MS + 30_000);

  afterAll(async () => {
    await Promise.all([agent?.stop(), receiver?.stop(), gateway?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('shows the receiver and the echo agent it runs, and has the steps this test follows', () => {
    expect(blocks.filter((block) => block.lang === 'js').map((block) => block.code)).toEqual([
      receiverFile,
      agentFile,
    ]);
    expect(launcherBlock).toBe('ADMIN_API_KEY=admin-secret-0123456789 npm start\n');
    expect(receiverBlock).toBe(
      'npm run build -w sdk   # builds @voicegw/sdk here; an application runs `npm install @voicegw/sdk`\n' +
        'node docs/quickstart/receiver.mjs\n',
    );
    expect(agentBlock).toBe('node docs/quickstart/echo-agent.mjs\n');
    expect(steps).toHaveLength(5);
    expect(streamSteps).toHaveLength(7);
  });

  it(
    'answers a simulated call, collects the digits pressed and hangs up',
    async () => {
      const [ready, createApp, placeCall, pressDigits, listCalls] = steps as [
        string,
        string,
        string,
        string,
        string,
      ];
      // Repeated until both say ok, as the page says. Five processes start from TypeScript
      // sources: on a loaded CI host that took more than 20 s.
      await until(
        'the api and the media node',
        () => {
          try {
            return run(ready) === '{"status":"ok"}{"status":"ok"}' ? true : undefined;
          } catch {
            return undefined; // not listening yet
          }
        },
        STARTUP_MS,
      );
      expect(run(createApp)).toMatch(/^\{"success":true,"app_id":"quickstart".*\{"success":true/);

      run(placeCall);
      const started = await until('play_and_get_digits to start', () =>
        received('command.result').find((event) => event.command === 'play_and_get_digits'),
      );
      expect(started.success).toBe(true);
      const [call] = received('call.new');
      expect(call).toMatchObject({
        app_id: 'quickstart',
        did: '0733000000',
        caller_id: '0501112222',
      });

      expect(JSON.parse(run(pressDigits))).toMatchObject({ digits: '1234#' });
      const [hangup] = await until('call.hangup', () => {
        const events = received('call.hangup');
        return events.length > 0 ? events : undefined;
      });
      expect(received('digits.collected')).toEqual([
        expect.objectContaining({ digits: '1234', terminator: '#', status: 'success' }),
      ]);
      expect(receiver.output).toContain('digits: 1234\n');
      expect(hangup).toMatchObject({
        session_uuid: call?.session_uuid,
        hangup_cause: 'completed',
      });
      await until('the call to be gone', () =>
        run(listCalls).trim() === '{"calls":[]}' ? true : undefined,
      );
    },
    STARTUP_MS + 40_000,
  );

  it('streams a dialled call to the echo agent, and the far end hears its tone come back', async () => {
    const [dial, status, start, say, heard, stop, hangup] = streamSteps as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const echo = agent as Terminal;
    run(dial);
    await until('the dialled call to be answered', () => {
      try {
        return run(status).includes('"status":"answered"') ? true : undefined;
      } catch {
        return undefined;
      }
    });
    expect(JSON.parse(run(start))).toMatchObject({ status: 'in_progress' });
    const [started] = await until('stream.started', () => {
      const events = received('stream.started');
      return events.length > 0 ? events : undefined;
    });
    expect(started).toMatchObject({ bidirectional: true, track: 'inbound' });
    const streamId = String(started?.stream_id);
    expect(logged(echo, 'connected')).toEqual([
      { event: 'connected', protocol: 'Call', version: '1.0.0' },
    ]);
    expect(logged(echo, 'start')).toEqual([
      expect.objectContaining({
        stream_id: streamId,
        streamSid: `MZ${streamId.replaceAll('-', '')}`,
        start: expect.objectContaining({
          session_uuid: started?.session_uuid,
          call_control_id: started?.session_uuid,
          bidirectional: true,
          tracks: ['inbound'],
        }),
      }),
    ]);

    const said = JSON.parse(run(say)) as { at_ms?: number };
    const found = await until('the tone to come back', () => {
      try {
        return /tone from (\d+) ms to (\d+) ms/.exec(run(heard)) ?? undefined;
      } catch {
        return undefined; // not heard yet: tone.mjs exits 1
      }
    });
    const [from, to] = [Number(found[1]), Number(found[2])];
    expect(to - from).toBeGreaterThanOrEqual(400);
    expect(to - from).toBeLessThanOrEqual(600);
    // heard.wav starts when the call does, and the say's answer says when the tone began.
    if (said.at_ms !== undefined) {
      const delay = from - said.at_ms;
      console.log(`quickstart echo: the tone came back ${delay} ms after it was said`);
      expect(delay).toBeGreaterThan(0);
      expect(delay).toBeLessThan(1000);
    }

    // Start and stop share a cooldown of one second (429 until then): a person typing never meets it.
    await until('stream/stop to be accepted', () =>
      run(stop).includes('"status":"in_progress"') ? true : undefined,
    );
    const [stopped] = await until('stream.stopped', () => {
      const events = received('stream.stopped');
      return events.length > 0 ? events : undefined;
    });
    expect(stopped).toMatchObject({ stream_id: streamId, reason: 'stopped' });
    expect(stopped?.frames_sent).toBeGreaterThan(25);
    expect(stopped?.frames_received).toBeGreaterThanOrEqual(25);
    await until('the stop frame', () => (echo.output.includes('closed 1000') ? true : undefined));
    expect(logged(echo, 'stop')).toEqual([
      expect.objectContaining({
        stream_id: streamId,
        stop: expect.objectContaining({ reason: 'stopped' }),
      }),
    ]);
    expect(echo.output).not.toContain('refused');

    run(hangup);
    await until('call.hangup of the dialled call', () =>
      received('call.hangup').find((event) => event.session_uuid === started?.session_uuid),
    );
  }, 60_000);
});
