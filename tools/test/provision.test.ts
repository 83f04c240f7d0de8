import { describe, expect, it } from 'vitest';
import {
  curlMissingMessage,
  planRedisServer,
  provisionCurl,
  provisionRedisSentinel,
  provisionRedisServer,
  redisSentinelMissingMessage,
  RedisProvisioningError,
  type PlatformFacts,
} from '@voicegw/tools';
import { parseOsRelease } from '../src/provision.js';

const DEBIAN = parseOsRelease('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n');
const UBUNTU = parseOsRelease('ID=ubuntu\nID_LIKE=debian\n');

const fresh = (facts: Partial<PlatformFacts> = {}): PlatformFacts => ({
  redisServerFound: false,
  redisUrlSet: false,
  platform: 'linux',
  osRelease: DEBIAN,
  root: true,
  passwordlessSudo: false,
  ...facts,
});

const APT = [
  ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'update', '-qq'],
  [
    'env',
    'DEBIAN_FRONTEND=noninteractive',
    'apt-get',
    'install',
    '-y',
    '-qq',
    '--no-install-recommends',
    'redis-server',
  ],
];

const manual = (facts: Partial<PlatformFacts>): string => {
  const plan = planRedisServer(fresh(facts));
  if (plan.kind !== 'manual') throw new Error(`expected a manual plan, got ${plan.kind}`);
  return plan.message;
};

describe('which way a machine gets redis-server', () => {
  it('nothing to do when redis-server is on PATH', () => {
    expect(planRedisServer(fresh({ redisServerFound: true }))).toEqual({ kind: 'present' });
  });

  it('nothing to do when REDIS_URL is set, even without redis-server', () => {
    expect(planRedisServer(fresh({ redisUrlSet: true }))).toEqual({ kind: 'external' });
  });

  it('Debian as root: apt-get update, then apt-get install -y redis-server', () => {
    expect(planRedisServer(fresh())).toEqual({ kind: 'install', steps: APT });
  });

  it('Ubuntu with passwordless sudo: the same through sudo -n', () => {
    expect(
      planRedisServer(fresh({ osRelease: UBUNTU, root: false, passwordlessSudo: true })),
    ).toEqual({ kind: 'install', steps: APT.map((step) => ['sudo', '-n', ...step]) });
  });

  it('Debian without root or passwordless sudo: the apt command to run', () => {
    expect(manual({ root: false })).toContain(
      "`sudo sh -c 'apt-get update && apt-get install -y redis-server'`",
    );
  });

  it.each([
    ['Fedora', 'ID=fedora\n', 'dnf install -y redis'],
    ['Rocky (rhel-like)', 'ID="rocky"\nID_LIKE="rhel centos fedora"\n', 'dnf install -y redis'],
    ['Amazon Linux', 'ID="amzn"\nID_LIKE="centos rhel fedora"\n', 'yum install -y redis'],
    ['Alpine', 'ID=alpine\n', 'apk add redis'],
    ['Arch', 'ID=arch\n', 'pacman -S --noconfirm redis'],
    ['openSUSE', 'ID="opensuse-leap"\nID_LIKE="suse opensuse"\n', 'zypper install -y redis'],
  ])('%s as root: stops with `%s`, installs nothing', (_name, release, command) => {
    const message = manual({ osRelease: parseOsRelease(release) });
    expect(message).toContain(`\`${command}\``);
    expect(message).toContain('REDIS_URL');
  });

  it('macOS: brew install redis', () => {
    expect(manual({ platform: 'darwin', osRelease: {} })).toContain('`brew install redis`');
  });

  it('Windows: WSL or REDIS_URL', () => {
    expect(manual({ platform: 'win32', osRelease: {} })).toMatch(/WSL.*REDIS_URL/);
  });
});

describe('provisionRedisServer', () => {
  const recorder = () => {
    const ran: string[][] = [];
    return {
      ran,
      run: (argv: readonly string[]) => {
        ran.push([...argv]);
        return { ok: true, output: '' };
      },
    };
  };

  it('installs with apt on Debian as root, saying so in one line', () => {
    const { ran, run } = recorder();
    const said: string[] = [];
    expect(provisionRedisServer({ facts: fresh(), run, say: (l) => said.push(l) })).toBe('install');
    expect(ran).toEqual(APT);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^redis-server not found: installing it with apt/);
  });

  it('given a Redis (REDIS_URL or REDIS_SENTINELS) and no redis-server, runs nothing', () => {
    const { ran, run } = recorder();
    expect(
      provisionRedisServer({
        externalRedis: true,
        facts: fresh({ redisUrlSet: true }),
        run,
      }),
    ).toBe('external');
    expect(ran).toEqual([]);
  });

  it('a failed apt step stops with the step and its output', () => {
    const run = () => ({ ok: false, output: 'E: Could not open lock file\n' });
    expect(() => provisionRedisServer({ facts: fresh(), run, say: () => {} })).toThrow(
      /apt-get update -qq`:\nE: Could not open lock file$/,
    );
  });

  it('elsewhere throws RedisProvisioningError with the command and runs nothing', () => {
    const { ran, run } = recorder();
    const facts = fresh({ platform: 'darwin', osRelease: {} });
    expect(() => provisionRedisServer({ facts, run })).toThrow(RedisProvisioningError);
    expect(ran).toEqual([]);
  });

  it('on this machine, where the suite runs, redis-server is present', () => {
    expect(provisionRedisServer({ run: () => ({ ok: false, output: 'must not run' }) })).toBe(
      'present',
    );
  });
});

describe('provisionCurl (docs/quickstart.md and its test run curl)', () => {
  const machine = (facts: Partial<PlatformFacts> = {}) => {
    const { redisServerFound: _found, redisUrlSet: _url, ...rest } = fresh(facts);
    return rest;
  };

  it('installs it with apt on Debian as root, as redis-server, saying so in one line', () => {
    const ran: string[][] = [];
    const said: string[] = [];
    const plan = provisionCurl({
      facts: { ...machine(), found: false },
      run: (argv) => {
        ran.push([...argv]);
        return { ok: true, output: '' };
      },
      say: (line) => said.push(line),
    });
    expect(plan).toEqual({ kind: 'install' });
    expect(ran).toEqual(
      APT.map((step) => step.map((arg) => (arg === 'redis-server' ? 'curl' : arg))),
    );
    expect(said).toEqual([expect.stringMatching(/^curl not found: installing it with apt/)]);
  });

  it('elsewhere installs nothing and says how to get it; a failed apt step says where', () => {
    const facts = { ...machine({ root: false }), found: false };
    expect(provisionCurl({ facts, run: () => ({ ok: false, output: 'must not run' }) })).toEqual({
      kind: 'manual',
      message: expect.stringContaining("`sudo sh -c 'apt-get update && apt-get install -y curl'`"),
    });
    const failing = provisionCurl({
      facts: { ...machine(), found: false },
      run: () => ({ ok: false, output: 'E: Unable to locate package curl\n' }),
      say: () => {},
    });
    expect(failing).toEqual({
      kind: 'manual',
      message: expect.stringMatching(
        /^installing curl failed at `env DEBIAN_FRONTEND=noninteractive apt-get update -qq`:\nE: Unable/,
      ),
    });
    expect(
      curlMissingMessage({ ...machine({ osRelease: parseOsRelease('ID=alpine\n') }) }),
    ).toContain('`apk add curl`');
  });

  it('on this machine, where the suite runs, curl is present', () => {
    expect(provisionCurl({ run: () => ({ ok: false, output: 'must not run' }) })).toEqual({
      kind: 'present',
    });
  });
});

describe('provisionRedisSentinel (the Sentinel failover test runs redis-sentinel)', () => {
  const machine = (facts: Partial<PlatformFacts> = {}) => {
    const { redisServerFound: _found, redisUrlSet: _url, ...rest } = fresh(facts);
    return rest;
  };

  it("installs Debian's redis-sentinel package with apt as root, saying so in one line", () => {
    const ran: string[][] = [];
    const said: string[] = [];
    const plan = provisionRedisSentinel({
      facts: { ...machine(), found: false },
      run: (argv) => {
        ran.push([...argv]);
        return { ok: true, output: '' };
      },
      say: (line) => said.push(line),
    });
    expect(plan).toEqual({ kind: 'install' });
    expect(ran).toEqual(
      APT.map((step) => step.map((arg) => (arg === 'redis-server' ? 'redis-sentinel' : arg))),
    );
    expect(said).toEqual([
      expect.stringMatching(/^redis-sentinel not found: installing it with apt \(.*apt-get update/),
    ]);
  });

  it('elsewhere installs nothing and names the test and the package that has it', () => {
    const plan = provisionRedisSentinel({
      facts: { ...machine({ root: false }), found: false },
      run: () => ({ ok: false, output: 'must not run' }),
    });
    expect(plan).toEqual({
      kind: 'manual',
      message: expect.stringContaining(
        "`sudo sh -c 'apt-get update && apt-get install -y redis-sentinel'`",
      ),
    });
    const fedora = redisSentinelMissingMessage(
      machine({ osRelease: parseOsRelease('ID=fedora\n') }),
    );
    expect(fedora).toMatch(/^redis-sentinel was not found on PATH: the Sentinel failover test/);
    expect(fedora).toContain('`dnf install -y redis`');
    expect(redisSentinelMissingMessage(machine({ platform: 'darwin', osRelease: {} }))).toContain(
      '`brew install redis`',
    );
  });

  it('on this machine, where the suite runs, redis-sentinel is present', () => {
    expect(provisionRedisSentinel({ run: () => ({ ok: false, output: 'must not run' }) })).toEqual({
      kind: 'present',
    });
  });
});
