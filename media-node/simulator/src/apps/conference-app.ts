// conference <name>[@<profile>][+flags{mute|deaf|...}]: answers, joins the room and runs until
// the member is kicked or the channel hangs up.
import type { AppImpl } from '../core/context.js';
import type { Member } from '../conference/conference.js';

export function parseConferenceArg(arg: string): {
  name: string;
  profile: string;
  flags: Set<string>;
} {
  let rest = arg.trim();
  const flags = new Set<string>();
  const flagMatch = /\+flags\{([^}]*)\}/.exec(rest);
  if (flagMatch) {
    for (const f of (flagMatch[1] ?? '').split('|')) if (f) flags.add(f.trim());
    rest = rest.replace(flagMatch[0], '');
  }
  const [name = '', profile = 'default'] = rest.split('@');
  return { name: name.trim(), profile: profile.trim() || 'default', flags };
}

export const conferenceApp: AppImpl = (ch, arg, ctx) => {
  const { name, profile, flags } = parseConferenceArg(arg);
  if (!name) return { done: Promise.resolve('_none_'), hangup: () => undefined };
  ch.answer();
  let finish!: () => void;
  const left = new Promise<void>((r) => (finish = r));
  let member: Member | undefined;
  const conf = ctx.conferences.join(name, profile);
  member = conf.add(ch, flags, () => finish());
  return {
    done: left.then(() => {
      if (member) conf.remove(member);
      member = undefined;
      return '_none_';
    }),
    hangup: () => finish(),
  };
};
