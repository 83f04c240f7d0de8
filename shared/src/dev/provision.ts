import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * `redis-server` for `npm start`, `npm test` and `.ci/run`, the one place that decides how a
 * machine gets it: present, not needed (REDIS_URL names a Redis), installed with apt (Debian or
 * Ubuntu, as root or with passwordless sudo), or a stop with the command for that system.
 */

/** What the decision depends on; probed from the machine, or given by a test. */
export interface PlatformFacts {
  readonly redisServerFound: boolean;
  /** REDIS_URL is set: the caller uses that Redis and spawns none. */
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

const APT_STEPS = [
  ['apt-get', 'update', '-qq'],
  ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'redis-server'],
] as const;

export function planRedisServer(facts: PlatformFacts): RedisPlan {
  if (facts.redisServerFound) return { kind: 'present' };
  if (facts.redisUrlSet) return { kind: 'external' };
  const family = linuxFamily(facts);
  if (family === 'debian' && (facts.root || facts.passwordlessSudo)) {
    // DEBIAN_FRONTEND through env(1): sudo resets the environment.
    const prefix = facts.root ? [] : ['sudo', '-n'];
    return {
      kind: 'install',
      steps: APT_STEPS.map((step) => [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', ...step]),
    };
  }
  return { kind: 'manual', message: manualMessage(facts, family) };
}

type LinuxFamily = 'debian' | 'fedora' | 'amazon' | 'alpine' | 'arch' | 'suse' | 'other';

function linuxFamily(facts: PlatformFacts): LinuxFamily | undefined {
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

const INSTALL_COMMANDS: Record<Exclude<LinuxFamily, 'other'>, string> = {
  debian: 'apt-get update && apt-get install -y redis-server',
  fedora: 'dnf install -y redis',
  amazon: 'yum install -y redis',
  alpine: 'apk add redis',
  arch: 'pacman -S --noconfirm redis',
  suse: 'zypper install -y redis',
};

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
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
  const command = INSTALL_COMMANDS[family];
  const sudo = facts.root ? command : `sudo sh -c '${command}'`;
  return `${missing} Install it with \`${sudo}\`, ${orUrl}`;
}

/** Runs one command; its output is only shown when it fails. */
export type CommandRunner = (argv: readonly string[]) => { ok: boolean; output: string };

const runCommand: CommandRunner = (argv) => {
  const [command = '', ...args] = argv;
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
};

export interface ProvisionOptions {
  /** The caller's REDIS_URL: set, nothing is installed. */
  readonly redisUrl?: string | undefined;
  readonly facts?: PlatformFacts;
  readonly run?: CommandRunner;
  readonly say?: (line: string) => void;
}

/**
 * Makes sure redis-server is on PATH unless REDIS_URL is set: returns what it did, or throws
 * RedisProvisioningError with the command to run on this system.
 */
export function provisionRedisServer(options: ProvisionOptions = {}): RedisPlan['kind'] {
  const facts = options.facts ?? probePlatform(options.redisUrl !== undefined);
  const plan = planRedisServer(facts);
  if (plan.kind === 'manual') throw new RedisProvisioningError(plan.message);
  if (plan.kind !== 'install') return plan.kind;
  const run = options.run ?? runCommand;
  const say = options.say ?? ((line: string) => console.log(line));
  say(
    `redis-server not found: installing it with apt (${plan.steps.map((s) => s.join(' ')).join(' && ')})`,
  );
  for (const step of plan.steps) {
    const result = run(step);
    if (!result.ok) {
      throw new RedisProvisioningError(
        `installing redis-server failed at \`${step.join(' ')}\`:\n${result.output.trim()}`,
      );
    }
  }
  return plan.kind;
}

/** The facts of this machine. */
export function probePlatform(redisUrlSet: boolean): PlatformFacts {
  const root = process.getuid?.() === 0;
  return {
    redisServerFound: redisServerAvailable(),
    redisUrlSet,
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
