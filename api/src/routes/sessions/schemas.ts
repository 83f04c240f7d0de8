import { Type } from 'typebox';

// Parameters of the session reads; what they answer is in domain/session-schemas.ts.

export const SessionParams = Type.Object({
  uuid: Type.String({ description: 'Session identifier' }),
});
