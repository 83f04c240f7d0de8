import type { Scenario } from '../lib/scenario.js';
import { apiCommand } from './api-command.js';
import { bridge } from './bridge.js';
import { conferenceChurn } from './conference-churn.js';
import { idle } from './idle.js';
import { mediaNode } from './media-node.js';
import { mediaStreams } from './media-streams.js';
import { replicaWait } from './replica-wait.js';
import { webhooks } from './webhooks.js';

/** Every scenario `npm run bench` runs, in order. A new scenario is one file and one line here. */
export const SCENARIOS: readonly Scenario[] = [
  idle,
  apiCommand,
  mediaNode,
  conferenceChurn,
  webhooks,
  mediaStreams,
  bridge,
  replicaWait,
];
