// The dialplan applications the simulator knows, by name.
import type { AppImpl } from '../core/context.js';
import { answer, hangup, log, park, preAnswer, ringReady, set, sleepApp, unset } from './basic.js';
import { playback } from './playback.js';
import { playAndGetDigits } from './play-and-get-digits.js';
import { conferenceApp } from './conference-app.js';

export const APPS: ReadonlyMap<string, AppImpl> = new Map<string, AppImpl>([
  ['answer', answer],
  ['pre_answer', preAnswer],
  ['ring_ready', ringReady],
  ['hangup', hangup],
  ['park', park],
  ['set', set],
  ['export', set],
  ['unset', unset],
  ['log', log],
  ['sleep', sleepApp],
  ['playback', playback],
  ['play_and_get_digits', playAndGetDigits],
  ['conference', conferenceApp],
]);
