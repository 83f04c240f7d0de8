import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { controlRoom, type RoomControl } from '../../domain/rooms.js';
import { ControlAccepted } from '../../domain/room-schemas.js';
import { common, errors, PlayBody, RoomParams, VolumeBody } from './schemas.js';

interface ControlRoute {
  readonly control: RoomControl;
  readonly summary: string;
  readonly description: string;
  /** The arguments a control takes; their type is what controlRoom accepts. */
  readonly body?: typeof PlayBody | typeof VolumeBody;
}

const CONTROLS: readonly ControlRoute[] = [
  {
    control: 'play',
    summary: 'Play audio into a conference room',
    description:
      'Each URL is played into the room in turn. Emits `conference.play.started` at once and ' +
      '`conference.play.finished` when playback ends. Cooldown `conf_play`: 2 s per room.',
    body: PlayBody,
  },
  {
    control: 'pause',
    summary: 'Pause or resume room playback',
    description:
      'Toggles. Emits `conference.play.paused`. Cooldown `conference_control`: 200 ms per room.',
  },
  {
    control: 'stop',
    summary: 'Stop all room playback',
    description: 'Emits `conference.play.stopped`. Cooldown `conference_control`: 200 ms per room.',
  },
  {
    control: 'volume',
    summary: 'Set the room playback volume',
    description:
      'Emits `conference.play.volume_changed`. Cooldown `conference_control`: 200 ms per room.',
    body: VolumeBody,
  },
];

/**
 * Room playback controls. Each is counted by its own Lua script (rate limits included), so the
 * v1 rate-limit hook skips them (`rateLimit: 'script'`).
 */
const playbackRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const { control, summary, description, body } of CONTROLS) {
    const url = `/:room_id/${control}`;
    const schema = {
      ...common,
      summary,
      description,
      params: RoomParams,
      response: { 202: ControlAccepted, ...errors },
    };
    if (body) {
      app.post(
        url,
        { config: { rateLimit: 'script', body: 'required' }, schema: { ...schema, body } },
        async (request, reply) =>
          reply
            .code(202)
            .send(await controlRoom(app, request, request.params.room_id, control, request.body)),
      );
    } else {
      // A control without a body schema takes no arguments: a body sent anyway is ignored,
      // never passed on to the media node unchecked.
      app.post(url, { config: { rateLimit: 'script' }, schema }, async (request, reply) =>
        reply.code(202).send(await controlRoom(app, request, request.params.room_id, control, {})),
      );
    }
  }
};

export default playbackRoutes;
