import type { Scenario } from '../lib/scenario.js';
import { apiCommand } from './api-command.js';
import { bridge } from './bridge.js';
import { conferenceChurn } from './conference-churn.js';
import { mediaNode } from './media-node.js';
import { mediaStreams } from './media-streams.js';
import { webhooks } from './webhooks.js';

/** Every scenario `npm run bench` runs, in order. A new scenario is one file and one line here. */
export const SCENARIOS: readonly Scenario[] = [
  apiCommand,
  mediaNode,
  conferenceChurn,
  webhooks,
  mediaStreams,
  bridge,
];
