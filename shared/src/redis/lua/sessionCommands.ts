import { defineScript } from '../script-spec.js';

/** sessionCommands-n.lua: One session command of a batch (ScriptBatcher): its slice of KEYS and ARGV. */
export const sessionCommands = defineScript({
  name: 'sessionCommands',
  keys: [
    'ipWindow',
    'appWindow',
    'session',
    'heartbeat',
    'claim',
    'cooldown',
    'commandStream',
    'room',
    'roomMembers',
  ],
  args: [
    'appId',
    'ipLimit',
    'ipWindowMs',
    'appLimit',
    'appWindowMs',
    'command',
    'cooldownMs',
    'claimTtlMs',
    'deferredBody',
    'message',
    'roomId',
    'sessionId',
    'fingerprint',
  ],
  batch: true,
});
