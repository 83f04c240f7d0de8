import { Type, type TProperties } from 'typebox';
import { ERROR_CODES, type ErrorCode } from './catalogue.js';

/**
 * Every code in one enum, a shared schema (the errors plugin adds it) that the OpenAPI document
 * lists once, as `components.schemas.ErrorCode`, and every error body refers to.
 */
export const ErrorCodeSchema = {
  $id: 'ErrorCode',
  type: 'string',
  enum: ERROR_CODES,
  description: 'Stable error code: branch on it, never on the `error` text',
} as const;

const Code = Type.Unsafe<ErrorCode>({ $ref: ErrorCodeSchema.$id });

/**
 * The response schema of an error body (the catalogue's `ErrorBody`), with the fields some of a
 * route's errors add. It documents the body; the errors plugin serializes what the error holds.
 */
export const errorBody = <P extends TProperties>(extra: P, description = 'Error') =>
  Type.Object(
    { success: Type.Literal(false), error: Type.String(), code: Code, ...extra },
    { description },
  );

/** The body of errors that add no fields. */
export const ErrorBody = errorBody({});
