import { defineScript } from '../script-spec.js';

/** roomControl-6.lua: A room playback control: rate limits, ownership, cooldown, state and command. */
export const roomControl = defineScript({
  name: 'roomControl',
  keys: ['ipWindow', 'appWindow', 'room', 'cooldown', 'commandStream', 'events'],
  args: [
    'appId',
    'ipLimit',
    'ipWindowMs',
    'appLimit',
    'appWindowMs',
    'control',
    'cooldownMs',
    'command',
    'operationId',
    'value',
    ['event', 4],
  ],
});
