import type { ChainableCommander } from 'ioredis';

/**
 * Runs a MULTI (or pipeline) and fails when any of its commands failed. ioredis resolves `exec()`
 * with an [error, reply] pair per command, so a command Redis refused would otherwise pass
 * unnoticed; a transaction discarded by a WATCH (null) fails too.
 */
export async function execAll(commands: ChainableCommander): Promise<unknown[]> {
  const replies = await commands.exec();
  if (replies === null) throw new Error('Redis transaction discarded');
  return replies.map(([err, reply]) => {
    if (err) throw err;
    return reply;
  });
}
