import type { Redis } from 'ioredis';

const field = (info: string, name: string): number =>
  Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);

/** CPU time (user + system, ms) redis-server has used so far. */
export async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return (field(info, 'used_cpu_user') + field(info, 'used_cpu_sys')) * 1000;
}

/** The redis-server's process id. */
export async function redisPid(redis: Redis): Promise<number> {
  return field(await redis.info('server'), 'process_id');
}

/** Bytes of memory Redis holds for data (`used_memory`). */
export async function redisUsedMemory(redis: Redis): Promise<number> {
  return field(await redis.info('memory'), 'used_memory');
}

/** AOF rewrites Redis has run so far (each forks a child that competes for the CPU). */
export async function redisAofRewrites(redis: Redis): Promise<number> {
  return field(await redis.info('persistence'), 'aof_rewrites');
}
