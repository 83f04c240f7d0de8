import type { SessionCommandAnswers, SessionCommandBodies } from './contract.js';

export type SessionCommand = keyof SessionCommandBodies;

/** The body argument of a command: optional when every field is. */
export type CommandArgs<C extends SessionCommand> =
  Record<string, never> extends Required<Pick<SessionCommandBodies[C], RequiredKeys<C>>>
    ? [body?: SessionCommandBodies[C]]
    : [body: SessionCommandBodies[C]];
type RequiredKeys<C extends SessionCommand> = {
  [K in keyof SessionCommandBodies[C]]-?: undefined extends SessionCommandBodies[C][K] ? never : K;
}[keyof SessionCommandBodies[C]];

/** A command's answer, with the `command_uid` it was sent with (echoed in its events). */
export type CommandAccepted<C extends SessionCommand> = SessionCommandAnswers[C] & {
  readonly command_uid: string;
};
