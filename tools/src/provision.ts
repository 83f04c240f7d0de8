import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * `redis-server` for `npm start`, `npm test` and `.ci/run`, the one place that decides how a
 * machine gets it: present, not needed (REDIS_URL or REDIS_SENTINELS names a Redis), installed
 * with apt (Debian or Ubuntu, as root or with passwordless sudo), or a stop with the command for
 * that system. Programs only some tests run, for `npm test` and `.ci/run` the same way, except
 * that without one only its tests fail, with the command to get it: `curl` (docs/quickstart.md's
 * steps, and so its test) and `redis-sentinel` (the Sentinel failover test).
 */

/** What the decision depends on; probed from the machine, or given by a test. */
export interface PlatformFacts {
  readonly redisServerFound: boolean;
  /** REDIS_URL (or REDIS_SENTINELS) is set: the caller uses that Redis and spawns none. */
  readonly redisUrlSet: boolean;
  readonly platform: NodeJS.Platform;
  /** /etc/os-release as key/value pairs (Linux); empty elsewhere or when unreadable. */
  readonly osRelease: Readonly<Record<string, string>>;
  readonly root: boolean;
  /** `sudo -n true` succeeds (only probed when not root). */
  readonly passwordlessSudo: boolean;
}

export type RedisPlan =
  | { readonly kind: 'present' }
  | { readonly kind: 'external' }
  | { readonly kind: 'install'; readonly steps: readonly (readonly string[])[] }
  | { readonly kind: 'manual'; readonly message: string };

/** redis-server is missing and this machine cannot get it without the user. */
export class RedisProvisioningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisProvisioningError';
  }
}

/** A program the commands need, and the package that has it on each system. */
interface Program {
  readonly command: string;
  readonly packages: { readonly debian: string; readonly other: string };
}

/** A program only some tests run, and which (`… run it`, for its missing message). */
interface TestProgram extends Program {
  readonly neededBy: string;
}
const REDIS_SERVER: Program = {
  command: 'redis-server',
  packages: { debian: 'redis-server', other: 'redis' },
};
const CURL: TestProgram = {
  command: 'curl',
  packages: { debian: 'curl', other: 'curl' },
  neededBy: "docs/quickstart.md's steps, and its test, run it",
};
/** Debian packages it apart from redis-server; elsewhere the `redis` package has it. */
const REDIS_SENTINEL: TestProgram = {
  command: 'redis-sentinel',
  packages: { debian: 'redis-sentinel', other: 'redis' },
  neededBy: 'the Sentinel failover test (api/test/redis-sentinel-failover.test.ts) runs it',
};

/** What the way to install a program depends on. */
export type MachineFacts = Omit<PlatformFacts, 'redisServerFound' | 'redisUrlSet'>;

export function planRedisServer(facts: PlatformFacts): RedisPlan {
  if (facts.redisServerFound) return { kind: 'present' };
  if (facts.redisUrlSet) return { kind: 'external' };
  const steps = aptSteps(facts, REDIS_SERVER);
  if (steps) return { kind: 'install', steps };
  return { kind: 'manual', message: manualMessage(facts, linuxFamily(facts)) };
}

/** apt-get update and install of `program`, when this machine lets us run them; else undefined. */
function aptSteps(facts: MachineFacts, program: Program): string[][] | undefined {
  if (linuxFamily(facts) !== 'debian' || !(facts.root || facts.passwordlessSudo)) return undefined;
  // DEBIAN_FRONTEND through env(1): sudo resets the environment.
  const prefix = facts.root ? [] : ['sudo', '-n'];
  return [
    ['apt-get', 'update', '-qq'],
    ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', program.packages.debian],
  ].map((step) => [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', ...step]);
}

type LinuxFamily = 'debian' | 'fedora' | 'amazon' | 'alpine' | 'arch' | 'suse' | 'other';

function linuxFamily(facts: MachineFacts): LinuxFamily | undefined {
  if (facts.platform !== 'linux') return undefined;
  const ids = `${facts.osRelease.ID ?? ''} ${facts.osRelease.ID_LIKE ?? ''}`.split(/\s+/);
  const has = (...names: string[]): boolean => names.some((n) => ids.includes(n));
  if (has('debian', 'ubuntu')) return 'debian';
  if (has('amzn')) return 'amazon';
  if (has('fedora', 'rhel', 'centos')) return 'fedora';
  if (has('alpine')) return 'alpine';
  if (has('arch')) return 'arch';
  if (has('suse', 'opensuse')) return 'suse';
  return 'other';
}

const INSTALL_COMMANDS: Record<Exclude<LinuxFamily, 'other'>, (pkg: string) => string> = {
  debian: (pkg) => `apt-get update && apt-get install -y ${pkg}`,
  fedora: (pkg) => `dnf install -y ${pkg}`,
  amazon: (pkg) => `yum install -y ${pkg}`,
  alpine: (pkg) => `apk add ${pkg}`,
  arch: (pkg) => `pacman -S --noconfirm ${pkg}`,
  suse: (pkg) => `zypper install -y ${pkg}`,
};

/** The command that installs `program` on a Linux family, as this user runs it. */
function installCommand(
  facts: MachineFacts,
  family: Exclude<LinuxFamily, 'other'>,
  program: Program,
) {
  const command = INSTALL_COMMANDS[family](
    family === 'debian' ? program.packages.debian : program.packages.other,
  );
  return facts.root ? command : `sudo sh -c '${command}'`;
}

const available = (command: string): boolean =>
  spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

export function redisServerAvailable(): boolean {
  return available(REDIS_SERVER.command);
}

/** How to get redis-server on this system, for a user who has to do it. */
export function manualRedisMessage(facts: PlatformFacts): string {
  return manualMessage(facts, linuxFamily(facts));
}

function manualMessage(facts: PlatformFacts, family: LinuxFamily | undefined): string {
  const missing = 'redis-server was not found on PATH and REDIS_URL is not set.';
  const orUrl = 'or set REDIS_URL to a running Redis.';
  if (facts.platform === 'darwin')
    return `${missing} Install it with \`brew install redis\`, ${orUrl}`;
  if (facts.platform === 'win32') {
    return `${missing} Redis has no native Windows build: run the gateway in WSL (Ubuntu), ${orUrl}`;
  }
  if (family === undefined || family === 'other') {
    return `${missing} Install Redis with your system's package manager (the package is usually \`redis\` or \`redis-server\`), ${orUrl}`;
  }
  return `${missing} Install it with \`${installCommand(facts, family, REDIS_SERVER)}\`, ${orUrl}`;
}

/** Runs one command; its output is only shown when it fails. */
export type CommandRunner = (argv: readonly string[]) => { ok: boolean; output: string };

const runCommand: CommandRunner = (argv) => {
  const [command = '', ...args] = argv;
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
};

export interface ProvisionOptions {
  /** The caller was given a Redis (REDIS_URL or REDIS_SENTINELS): nothing is installed. */
  readonly externalRedis?: boolean;
  readonly facts?: PlatformFacts;
  readonly run?: CommandRunner;
  readonly say?: (line: string) => void;
}

/**
 * Makes sure redis-server is on PATH unless given a Redis: returns what it did, or throws
 * RedisProvisioningError with the command to run on this system.
 */
export function provisionRedisServer(options: ProvisionOptions = {}): RedisPlan['kind'] {
  const facts = options.facts ?? probePlatform(options.externalRedis === true);
  const plan = planRedisServer(facts);
  if (plan.kind === 'manual') throw new RedisProvisioningError(plan.message);
  if (plan.kind !== 'install') return plan.kind;
  const failure = install(REDIS_SERVER, plan.steps, options);
  if (failure) throw new RedisProvisioningError(failure);
  return plan.kind;
}

/** Runs the apt steps, saying so in one line; why it failed, or undefined. */
function install(
  program: Program,
  steps: readonly (readonly string[])[],
  options: Pick<ProvisionOptions, 'run' | 'say'>,
): string | undefined {
  const run = options.run ?? runCommand;
  const say = options.say ?? ((line: string) => console.log(line));
  say(
    `${program.command} not found: installing it with apt (${steps.map((s) => s.join(' ')).join(' && ')})`,
  );
  for (const step of steps) {
    const result = run(step);
    if (!result.ok)
      return `installing ${program.command} failed at \`${step.join(' ')}\`:\n${result.output.trim()}`;
  }
  return undefined;
}

/** What became of a program only some tests run. */
export type TestProgramPlan =
  { readonly kind: 'present' | 'install' } | { readonly kind: 'manual'; readonly message: string };

export interface TestProgramOptions extends Pick<ProvisionOptions, 'run' | 'say'> {
  readonly facts?: MachineFacts & { readonly found: boolean };
}

/**
 * Makes sure a program some tests run is on PATH: present, installed with apt as redis-server is,
 * or `manual` with why not and the command to run. It never throws: without it only the tests
 * that need it fail (with that message), not the suite.
 */
function provisionTestProgram(program: TestProgram, options: TestProgramOptions): TestProgramPlan {
  const facts = options.facts ?? { ...probeMachine(), found: available(program.command) };
  if (facts.found) return { kind: 'present' };
  const steps = aptSteps(facts, program);
  if (!steps) return { kind: 'manual', message: missingMessage(program, facts) };
  const failure = install(program, steps, options);
  return failure ? { kind: 'manual', message: failure } : { kind: 'install' };
}

/** Why a test program is needed and how to get it on this system. */
function missingMessage(program: TestProgram, facts: MachineFacts): string {
  const { command } = program;
  const missing = `${command} was not found on PATH: ${program.neededBy}.`;
  if (facts.platform === 'darwin') {
    return `${missing} Install it with \`brew install ${program.packages.other}\`.`;
  }
  if (facts.platform === 'win32') return `${missing} Run the gateway in WSL (Ubuntu).`;
  const family = linuxFamily(facts);
  if (family === undefined || family === 'other')
    return `${missing} Install ${command} with your system's package manager.`;
  return `${missing} Install it with \`${installCommand(facts, family, program)}\`.`;
}

/** curl, for docs/quickstart.md's steps and its test. */
export const provisionCurl = (options: TestProgramOptions = {}): TestProgramPlan =>
  provisionTestProgram(CURL, options);

export const curlAvailable = (): boolean => available(CURL.command);

export const curlMissingMessage = (facts: MachineFacts = probeMachine()): string =>
  missingMessage(CURL, facts);

/** redis-sentinel, for the Sentinel failover test. */
export const provisionRedisSentinel = (options: TestProgramOptions = {}): TestProgramPlan =>
  provisionTestProgram(REDIS_SENTINEL, options);

export const redisSentinelAvailable = (): boolean => available(REDIS_SENTINEL.command);

export const redisSentinelMissingMessage = (facts: MachineFacts = probeMachine()): string =>
  missingMessage(REDIS_SENTINEL, facts);

/** The facts of this machine. */
export function probePlatform(redisUrlSet: boolean): PlatformFacts {
  return { ...probeMachine(), redisServerFound: redisServerAvailable(), redisUrlSet };
}

function probeMachine(): MachineFacts {
  const root = process.getuid?.() === 0;
  return {
    platform: process.platform,
    osRelease: readOsRelease(),
    root,
    passwordlessSudo: !root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  };
}

function readOsRelease(): Record<string, string> {
  let text = '';
  try {
    text = readFileSync('/etc/os-release', 'utf8');
  } catch {
    return {};
  }
  return parseOsRelease(text);
}

export function parseOsRelease(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match?.[1]) fields[match[1]] = (match[2] ?? '').replace(/^(["'])(.*)\1$/, '$2');
  }
  return fields;
}

/** For command-line entrypoints: provisions, or prints why not and exits 1 (no stack trace). */
export function provisionOrExit(options: ProvisionOptions = {}): void {
  try {
    provisionRedisServer(options);
  } catch (err) {
    if (!(err instanceof RedisProvisioningError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}
