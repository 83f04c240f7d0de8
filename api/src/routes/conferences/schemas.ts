import { AudioUrls } from '@voicegw/shared';
import { Type } from 'typebox';
import { ErrorBody, errorBody } from '../../errors/schema.js';

// Parameters, bodies and OpenAPI settings of the conference routes; what the domain returns is
// in domain/room-schemas.ts.

export const ROOM_NAME_PATTERN = '^[a-zA-Z0-9][a-zA-Z0-9_-]*$';

export const LIST_LIMIT = { default: 50, max: 200 } as const;
export const MEMBERS_LIMIT = { default: 50, max: 1000 } as const;

export const RoomParams = Type.Object({
  room_id: Type.String({ description: 'Room identifier `{prefix}-room-{uuid}`' }),
});

export const CreateBody = Type.Object(
  { name: Type.String({ pattern: ROOM_NAME_PATTERN, maxLength: 64 }) },
  { additionalProperties: false },
);
export const PlayBody = Type.Object({ urls: AudioUrls }, { additionalProperties: false });
export const VolumeBody = Type.Object(
  {
    volume: Type.Integer({
      minimum: -50,
      maximum: 7,
      description: 'Negative attenuates, positive amplifies.',
    }),
  },
  { additionalProperties: false },
);

export const RoomCreated = Type.Object({ room_id: Type.String() });
export const RoomDeleted = Type.Object({ room_id: Type.String() });

export const NameTaken = errorBody({ detail: Type.Object({ room_id: Type.String() }) });

/** OpenAPI and serialization settings every conference route shares. */
export const common = {
  tags: ['conferences'],
  security: [{ appId: [], apiKey: [] }],
} as const;
export const errors = { '4xx': ErrorBody, '5xx': ErrorBody } as const;
