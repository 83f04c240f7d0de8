import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Imports `entry` in a fresh node (through tsx, as the processes run) and lists the packages
 * of `watched` that it loaded, seen by a module resolve hook.
 */
async function packagesLoadedBy(entry: string, watched: readonly string[]): Promise<string[]> {
  const hook = `
    let port;
    export async function initialize(data) { port = data.port; }
    export async function resolve(specifier, context, next) {
      const result = await next(specifier, context);
      port.postMessage(result.url);
      return result;
    }`;
  const script = `
    import { register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const { port1, port2 } = new MessageChannel();
    const urls = [];
    port1.on('message', (url) => urls.push(url));
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}),
      { data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(entry)});
    await new Promise((resolve) => setTimeout(resolve, 100));
    port1.close();
    console.log(JSON.stringify(urls));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: ROOT },
  );
  const urls = JSON.parse(stdout) as string[];
  return watched.filter((name) => urls.some((url) => url.includes(`/node_modules/${name}/`)));
}

describe('package entries load what their processes use', () => {
  const BUS_ONLY = ['kafkajs', 'redlock'];

  it.each(['@voicegw/shared', '@voicegw/media-node'])(
    '%s loads neither kafkajs nor redlock (the bus is @voicegw/shared/bus)',
    async (entry) => {
      expect(await packagesLoadedBy(entry, BUS_ONLY)).toEqual([]);
    },
  );

  it('@voicegw/shared/bus loads them', async () => {
    expect(await packagesLoadedBy('@voicegw/shared/bus', BUS_ONLY)).toEqual(BUS_ONLY);
  });
});
