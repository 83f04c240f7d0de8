import {
  hopTrace,
  resultCommandName,
  type EventPayload,
  type SessionCommandMessage,
  type SessionCommandName,
} from '@voicegw/shared';
import type { NodeWithSessions } from '../session/registry.js';
import type { Session } from '../session/session.js';
import { publishResult } from './result.js';

/** What a bridge's or a transfer's command.result adds: the other party, the leg's outcome. */
export type ResultDetail = Pick<EventPayload<'command.result'>, 'outcome' | 'peer_session_uuid'>;

export interface CommandContext<C extends SessionCommandName = SessionCommandName> {
  readonly session: Session;
  /** The node with its sessions, for a command that involves another session (bridge, transfer). */
  readonly node: NodeWithSessions;
  readonly message: SessionCommandMessage<C>;
  /**
   * Publishes this command's command.result (once; later calls are ignored), after `before`,
   * the events it reports, in the same step: they can neither be split by a retry nor wait for
   * each other's round trip.
   */
  result(
    success: boolean,
    error?: string,
    before?: readonly EventPayload[],
    detail?: ResultDetail,
  ): Promise<void>;
  /**
   * Set once result() has gone through: its script acknowledged the command's stream entry (or
   * found it acknowledged by a sweeper), so the consumer need not.
   */
  readonly answered: boolean;
}

/** What a deferred command's start returns: its confirmation (or timeout), still to come. */
export interface Pending {
  readonly confirmed: Promise<void>;
}

/**
 * A deferred command's confirmation, settled once: `settle()` when confirmed, `settle(report)`
 * with the queued task that reports its failure, whose outcome it takes. It rejects when that
 * report could not be published, so the command is not acknowledged without its result; if
 * `start` failed first and nobody awaits it, the rejection is only logged by the session queue.
 */
export function confirmation(): Pending & { readonly settle: (report?: Promise<void>) => void } {
  let settle!: (report?: Promise<void>) => void;
  const confirmed = new Promise<void>((resolve) => (settle = resolve));
  void confirmed.catch(() => undefined);
  return { confirmed, settle };
}

/**
 * One session command, one file (jambonz task style). `start` runs in the session's serial
 * queue and returns once FreeSWITCH accepted the request; a deferred command returns its
 * Pending confirmation, which is awaited outside the queue before the stream entry is
 * acknowledged (a promise cannot be returned bare: an async function would wait for it).
 */
export interface SessionCommand<C extends SessionCommandName = SessionCommandName> {
  readonly name: C;
  /** How the command maps onto the event socket. */
  readonly esl: string;
  /** The FreeSWITCH event (or reply) that confirms it. */
  readonly confirmedBy: string;
  start(ctx: CommandContext<C>): Promise<Pending | void>;
}

/**
 * A context whose result() publishes command.result with the session's metadata, once, and not
 * at all when a sweeper answered the command (stream entry `entryId`) as lost (result.ts).
 */
export function commandContext<C extends SessionCommandName>(
  node: NodeWithSessions,
  session: Session,
  message: SessionCommandMessage<C>,
  entryId: string,
): CommandContext<C> {
  let reported = false;
  let answered = false;
  return {
    session,
    node,
    message,
    get answered() {
      return answered;
    },
    async result(success, error, before = [], detail = {}) {
      if (reported) return;
      reported = true;
      hopTrace.mark(message.operation_id, 'node.result');
      session.node.metrics.commands.inc({
        command: message.command,
        outcome: success ? 'ok' : 'failed',
      });
      const result = {
        event: 'command.result',
        session_uuid: session.id,
        operation_id: message.operation_id,
        command: resultCommandName(message.command),
        command_uid: message.command_uid,
        success,
        ...(error ? { error } : {}),
        ...detail,
      } as const;
      await publishResult(session.node, entryId, session.appId, result, session.metadata, before);
      answered = true;
      hopTrace.mark(message.operation_id, 'node.published');
    },
  };
}

/** The error text of a failed ESL request, for command.result's optional `error`. */
export const describe = (err: unknown): string =>
  err instanceof Error ? err.message : String(err);
