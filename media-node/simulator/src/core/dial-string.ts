// Parses `originate {var=val,…}<endpoint> <&app(arg)|extension> [dialplan] [context] [cid_name]
// [cid_num] [timeout]` into its parts.

export interface DialEndpoint {
  /** loopback, sofia, error, user, or anything else (→ CHAN_NOT_IMPLEMENTED). */
  readonly tech: string;
  readonly raw: string;
  /** The number the far end is reached at (for the number book). */
  readonly number: string;
  /** Channel name FreeSWITCH gives the outbound leg. */
  readonly channelName: string;
  readonly context: string;
  /** sofia/<profile>/<user>@<host>:<port>: where the SIP request goes (another simulator's trunk). */
  readonly sip?: { readonly host: string; readonly port: number };
  /** sofia/gateway/<gateway>/<number>: the gateway's name. */
  readonly gateway?: string;
}

export interface OriginateRequest {
  readonly vars: Map<string, string>;
  readonly endpoint: DialEndpoint;
  /** `&app(arg)` form; undefined when an extension is given (we then park). */
  readonly app: { readonly name: string; readonly arg: string } | undefined;
  readonly timeoutSec: number | undefined;
}

/** Splits `{a=1,b='x,y'}` respecting quotes; FreeSWITCH also accepts `^^:` but we do not. */
export function parseVars(block: string): Map<string, string> {
  const vars = new Map<string, string>();
  let cur = '';
  let quote: string | undefined;
  const push = () => {
    const idx = cur.indexOf('=');
    if (idx > 0) vars.set(cur.slice(0, idx).trim(), cur.slice(idx + 1).replace(/^'|'$/g, ''));
    cur = '';
  };
  for (const ch of block) {
    if (quote) {
      if (ch === quote) quote = undefined;
      cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
    } else if (ch === ',') push();
    else cur += ch;
  }
  push();
  return vars;
}

export function parseEndpoint(raw: string): DialEndpoint {
  const [tech = '', ...parts] = raw.split('/');
  const rest = parts.join('/');
  switch (tech) {
    case 'loopback': {
      const [ext = '', context = 'default'] = rest.split('/');
      return { tech, raw, number: ext, channelName: `loopback/${ext}-a`, context };
    }
    case 'sofia': {
      // sofia/gateway/<gw>/<number> or sofia/<profile>/<user>@<host>[:<port>]
      if (parts[0] === 'gateway') {
        const number = parts.slice(2).join('/').split('@')[0] ?? '';
        return { tech, raw, number, channelName: raw, context: 'default', gateway: parts[1] ?? '' };
      }
      const [number = '', host = ''] = (rest.split('/').pop() ?? '').split('@');
      const m = /^([^:]+):(\d{1,5})$/.exec(host);
      const sip = m ? { host: m[1] ?? '', port: Number(m[2]) } : undefined;
      return { tech, raw, number, channelName: raw, context: 'default', ...(sip ? { sip } : {}) };
    }
    default:
      return { tech, raw, number: rest, channelName: raw, context: 'default' };
  }
}

export function parseOriginate(arg: string): OriginateRequest | undefined {
  let rest = arg.trim();
  let vars = new Map<string, string>();
  if (rest.startsWith('{')) {
    const end = rest.indexOf('}');
    if (end === -1) return undefined;
    vars = parseVars(rest.slice(1, end));
    rest = rest.slice(end + 1);
  }
  const space = rest.indexOf(' ');
  if (space === -1) return undefined;
  const endpoint = parseEndpoint(rest.slice(0, space));
  const tail = rest.slice(space + 1).trim();
  let app: OriginateRequest['app'];
  let timeoutSec: number | undefined;
  if (tail.startsWith('&')) {
    const m = /^&([\w-]+)(?:\((.*)\))?/.exec(tail);
    if (!m) return undefined;
    app = { name: m[1] ?? 'park', arg: m[2] ?? '' };
  } else {
    const fields = tail.split(/\s+/);
    const last = Number(fields[6]);
    if (Number.isFinite(last)) timeoutSec = last;
  }
  const varTimeout = Number(vars.get('originate_timeout'));
  if (Number.isFinite(varTimeout) && varTimeout > 0) timeoutSec = varTimeout;
  return { vars, endpoint, app, timeoutSec };
}
