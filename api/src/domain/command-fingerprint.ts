import { hash } from 'node:crypto';

/** JSON with object keys sorted at every level: the same arguments in any key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What a command_uid was claimed for: the command's name and a hash of its arguments after
 * validation (defaults filled in, so `{}` and the defaults spelled out are the same request).
 * A repeat with another fingerprint is another request under the same key (422).
 */
export function commandFingerprint(command: string, args: unknown): string {
  // One-shot hash(): a third of createHash()'s cost for inputs this small.
  const digest = hash('sha256', canonical(args), 'base64url').slice(0, 22);
  return `${command} ${digest}`;
}
