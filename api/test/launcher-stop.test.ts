// `npm start` stopped as a developer stops it (Ctrl-C, a SIGINT to its foreground process group)
// and as a supervisor or a CI timeout does (SIGKILL to the launcher alone, which no handler of
// its own sees). Either way every process it started (simulator, media node, api, dispatcher,
// redis-server and whatever they run themselves) must be gone within a bound, none left
// orphaned, every port free. And a port another process holds is said before anything starts.
// Only the root script is used, not the launcher's file, so this holds wherever it lives.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callThroughGateway, healthy, ROOT } from './process-helpers.js';

/** The launcher stops its children one at a time; the media node drains for up to 3 s. */
const STOP_BOUND_MS = 20_000;
/** Orphaned children shut down by themselves, then exit after 5 s at the latest. */
const ORPHAN_BOUND_MS = 10_000;
const ADMIN_KEY = 'launcher-test-admin-key-0123456789';
/** What `npm start` runs, each recognised by its command line. */
const PROCESSES = [
  'media-node/simulator/src/main.ts',
  'media-node/src/main.ts',
  'api/src/server.ts',
  'api/src/dispatcher.ts',
  'redis-server',
];

let dataDir: string;
let npm: ChildProcess | undefined;
let started: Set<number> = new Set();
let output = '';

/** The parent pid of every live process, from /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = state(Number(entry));
    if (stat) map.set(Number(entry), stat.ppid);
  }
  return map;
}

/** State and parent of a process (`/proc/<pid>/stat`), or undefined once it is gone. */
function state(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces: the fields start after its last ')'.
    const [status = '', ppid = '0'] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: status, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Every process descended from `root`, at this moment. */
function descendants(root: number): Set<number> {
  const byParent = parents();
  const found = new Set<number>();
  let frontier = [root];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [pid, ppid] of byParent)
      if (frontier.includes(ppid) && !found.has(pid)) next.push(pid);
    for (const pid of next) found.add(pid);
    frontier = next;
  }
  return found;
}

/** A zombie has exited; only its parent has not reaped it yet. */
const alive = (pid: number): boolean => {
  const s = state(pid);
  return s !== undefined && s.state !== 'Z';
};

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
};

type Ports = Record<
  'api' | 'simHttp' | 'simEsl' | 'simSip' | 'mediaMetrics' | 'recording' | 'dispatcher',
  number
>;
let ports: Ports;

const newPorts = (): Promise<Ports> =>
  freePorts('api', 'simHttp', 'simEsl', 'simSip', 'mediaMetrics', 'recording', 'dispatcher');

/** `npm start` in a process group of its own, as a terminal gives it, on the given ports. */
function npmStart(on: Ports): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(on.api),
    SIM_HTTP_PORT: String(on.simHttp),
    SIM_ESL_PORT: String(on.simEsl),
    SIM_SIP_PORT: String(on.simSip),
    MEDIA_METRICS_PORT: String(on.mediaMetrics),
    RECORDING_PORT: String(on.recording),
    DISPATCHER_METRICS_PORT: String(on.dispatcher),
    DATA_DIR: dataDir,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'warn',
  };
  // The launcher spawns a Redis of its own only without REDIS_URL.
  delete env.REDIS_URL;
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: 'pipe' });
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return child;
}

/** Resolves once the api, the media node and the dispatcher answer /health. */
async function gatewayUp(on: Ports): Promise<void> {
  await Promise.all(
    [on.api, on.mediaMetrics, on.dispatcher].map((port) =>
      healthy(`http://127.0.0.1:${port}/health`, 90_000),
    ),
  );
}

/** Whether a port can be bound on the loopback address again. */
function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      probe.close(() => resolve(true)),
    );
  });
}

beforeAll(async () => {
  ports = await newPorts();
  dataDir = mkdtempSync(join(tmpdir(), 'voicegw-launcher-'));
  npm = npmStart(ports);
  await gatewayUp(ports);
  started = descendants(npm.pid ?? 0);
}, 120_000);

/**
 * A call up on the media node: it drains on the way out (up to 3 s), so the launcher's shutdown
 * takes long enough for anything that cut it short to show.
 */
async function callUp(): Promise<void> {
  const gateway = { api: ports.api, simHttp: ports.simHttp, adminKey: ADMIN_KEY };
  await callThroughGateway(gateway, 'app_launcher', '0731112222');
}

afterAll(() => {
  // Whatever a failed test left running goes here, not into the next test run.
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('Ctrl-C with a call up stops every process it started within the bound, and orphans none', async () => {
    await callUp();
    const commands = new Map([...started].map((pid) => [pid, commandOf(pid)]));
    const gateway = [...commands].filter(([, command]) =>
      PROCESSES.some((part) => command.includes(part)),
    );
    for (const part of PROCESSES)
      expect(
        gateway.some(([, command]) => command.includes(part)),
        `${part} among ${[...commands.values()].join('\n')}`,
      ).toBe(true);

    const exited = new Promise<void>((resolve) => npm?.once('exit', () => resolve()));
    const stopped = Date.now();
    process.kill(-(npm?.pid ?? 0), 'SIGINT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_BOUND_MS))]);
    expect(Date.now() - stopped).toBeLessThan(STOP_BOUND_MS);
    // The launcher owns its children's shutdown: none of them outlives it (an orphan would).
    expect(gateway.filter(([pid]) => alive(pid)).map(([, command]) => command)).toEqual([]);
    // Nor does anything they ran themselves (tsx's esbuild services), a moment later.
    await expect
      .poll(() => [...started].filter(alive).map(commandOf), { timeout: 2000, interval: 50 })
      .toEqual([]);
    expect(output).not.toMatch(/exited with code [1-9]; stopping the gateway/);
  }, 60_000);

  it('SIGKILL to the launcher alone: every process it started exits within the bound and frees its port', async () => {
    const on = await newPorts();
    const again = npmStart(on);
    await gatewayUp(on);
    // npm runs the launcher through a shell (`sh -c node … start.ts`): the node process is what a
    // supervisor's SIGKILL would end.
    const launcher = [...descendants(again.pid ?? 0)].find((pid) => {
      const command = commandOf(pid);
      return !command.startsWith('sh ') && command.includes('launcher/start.ts');
    });
    expect(launcher).toBeDefined();
    const children = descendants(launcher ?? 0);
    for (const pid of children) started.add(pid);
    const gateway = [...children].filter((pid) =>
      PROCESSES.some((part) => commandOf(pid).includes(part)),
    );
    expect(gateway.length).toBeGreaterThanOrEqual(PROCESSES.length);

    process.kill(launcher ?? 0, 'SIGKILL');
    await expect
      .poll(() => [...children].filter(alive).map(commandOf), {
        timeout: ORPHAN_BOUND_MS,
        interval: 100,
      })
      .toEqual([]);
    const ports = Object.entries(on);
    const stillHeld = await Promise.all(
      ports.map(async ([name, port]) => ((await free(port)) ? '' : name)),
    );
    expect(stillHeld.filter(Boolean)).toEqual([]);
    // npm itself ends once its script did; should it linger, it goes too.
    again.kill('SIGKILL');
  }, 120_000);
});

describe('npm start with a port another process holds', () => {
  let holder: Server;
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('says which port and which variable moves it, and starts nothing', async () => {
    const on = await newPorts();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(on.recording, '127.0.0.1', resolve));
    const before = output.length;
    const blocked = npmStart(on);
    const code = await new Promise<number | null>((resolve) => blocked.once('exit', resolve));
    expect(code).not.toBe(0);
    const said = output.slice(before);
    expect(said).toContain(
      `port ${on.recording} (the media node's recording receiver) is already in use by another process: set RECORDING_PORT to a free port`,
    );
    // Nothing was started: the api's port was never taken.
    expect(await free(on.api)).toBe(true);
    expect(said).not.toContain('voicegw is starting');
  }, 60_000);
});
