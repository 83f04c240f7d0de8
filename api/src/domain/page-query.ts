import { Type, type Static } from 'typebox';

// The query of the list routes (conferences, members, sessions): a page size and a cursor.

/**
 * `limit` below 1 or not an integer is 400; above the maximum it is clamped, up to the largest
 * integer a number holds exactly (beyond, 1e400 say, it is no integer: 400).
 */
export const PageQuery = (limit: { readonly default: number; readonly max: number }) =>
  Type.Object({
    limit: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      default: limit.default,
      description: `Page size, default ${limit.default}; larger values are clamped to ${limit.max}.`,
    }),
    cursor: Type.Optional(
      Type.String({ description: 'The `cursor` of the previous page, passed back unchanged.' }),
    ),
  });
export type PageQueryArgs = Static<ReturnType<typeof PageQuery>>;
