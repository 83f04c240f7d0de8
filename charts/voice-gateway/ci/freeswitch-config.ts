// What the FreeSWITCH configuration we ship must say once rendered, read from its XML as
// FreeSWITCH reads it (the points come from running it on a stock FreeSWITCH 1.10.12):
//   - every file is well-formed XML;
//   - conference.conf's profiles bind no caller controls (`none`: no `Can't find caller-controls`);
//   - RTP timeouts by media_timeout / media_hold_timeout, not the deprecated rtp-*-timeout-sec;
//   - the event socket password is never empty (FreeSWITCH would accept ClueCon instead), and it
//     is the media node's FS_ESL_PASSWORD;
//   - the gateway DIAL_STRING_TEMPLATE dials exists (no `Invalid Gateway`);
//   - every SIP profile paces RTP with `rtp-timer-name` `soft` (a bridge between two nodes'
//     FreeSWITCH is otherwise silent when one side sends no RTP);
//   - mod_audio_stream is loaded exactly when something streams with it (stream-mode recordings,
//     media streams), and in file mode FreeSWITCH writes where the recordings volume is mounted,
//     in its container and its media node's;
//   - and, when a case says what it rendered: sessions-per-second, max-sessions and every
//     setting of the SIP trunk, resolved through vars.xml from FreeSWITCH's environment.
import {
  attribute,
  children,
  descendants,
  expand,
  globalVariables,
  params,
  parseXml,
  type XmlElement,
} from './freeswitch-xml.js';

/** A container as the check needs it: its environment (secrets resolved) and its mounts. */
export interface Container {
  /** Values the check cannot know (a Secret it did not render) are absent. */
  readonly env: ReadonlyMap<string, string>;
  /** Mount path by volume name. */
  readonly mounts: ReadonlyMap<string, string>;
}

/** A FreeSWITCH with its configuration files, its media node and the api that serves recordings. */
export interface FreeswitchPod {
  readonly files: ReadonlyMap<string, string>;
  readonly freeswitch: Container;
  readonly mediaNode: Container;
  readonly api: Container;
  /** The volume name of the recordings, in all three containers. */
  readonly recordingsVolume: string;
}

/** The sofia gateway settings the trunk values become, by FreeSWITCH param name. */
export type GatewaySettings = Readonly<
  Record<
    'proxy' | 'realm' | 'username' | 'password' | 'register' | 'caller-id-in-from' | 'from-domain',
    string
  >
>;

/** What one rendering was asked for. */
export interface FreeswitchExpectation {
  readonly sessionsPerSecond: number;
  readonly maxSessions: number;
  /**
   * The one gateway of the profile and the settings it must resolve to (those given: a value in
   * a Secret the chart does not render is unknown); absent: no gateway at all.
   */
  readonly trunk?: { readonly name: string; readonly settings: Partial<GatewaySettings> };
  readonly recordingMode: 'off' | 'file' | 'stream';
  /** mediaStreams.enabled: stream/start needs mod_audio_stream. */
  readonly mediaStreams: boolean;
}

const DEFAULT_DIAL_TEMPLATE = 'sofia/gateway/pstn/{to}';
const DEPRECATED_PARAMS = ['rtp-timeout-sec', 'rtp-hold-timeout-sec'];

export function checkFreeswitchPod(pod: FreeswitchPod, expected?: FreeswitchExpectation): string[] {
  const problems: string[] = [];
  const documents = new Map<string, XmlElement>();
  for (const [name, text] of pod.files) {
    const parsed = parseXml(text);
    if (typeof parsed === 'string') problems.push(`${name}: ${parsed}`);
    else documents.set(name, parsed);
  }
  const configuration = (name: string): XmlElement | undefined =>
    children(documents.get(`${name}.xml`) ?? {}, 'configuration')[0];
  const globals = globalVariables(pod.files.get('vars.xml') ?? '', pod.freeswitch.env);

  // Rooms: `none`, or FreeSWITCH looks the controls group up on every join and logs an ERR.
  const profiles = descendants(configuration('conference.conf') ?? {}, 'profile');
  if (profiles.length === 0) problems.push('conference.conf.xml: no conference profile');
  for (const profile of profiles) {
    const controls = params(profile).get('caller-controls');
    if (controls !== 'none') {
      problems.push(
        `conference.conf.xml profile ${attribute(profile, 'name')}: caller-controls is ` +
          `${controls ?? 'unset'}, must be none`,
      );
    }
  }

  for (const [name, document] of documents) {
    for (const param of descendants(document, 'param')) {
      const key = attribute(param, 'name') ?? '';
      if (DEPRECATED_PARAMS.includes(key))
        problems.push(`${name}: ${key} is deprecated, use media_timeout / media_hold_timeout`);
    }
  }
  for (const name of ['media_timeout', 'media_hold_timeout']) {
    if (!/^[1-9]\d*$/.test(globals.get(name) ?? ''))
      problems.push(`vars.xml: ${name} must be set to a positive number of milliseconds`);
  }

  problems.push(...checkEslPassword(pod, configuration('event_socket.conf')));

  const sofia = configuration('sofia.conf');
  const gateways = descendants(sofia ?? {}, 'gateway');
  const dialTemplate = pod.mediaNode.env.get('DIAL_STRING_TEMPLATE') ?? DEFAULT_DIAL_TEMPLATE;
  const dialed = /^sofia\/gateway\/([^/]+)\//.exec(dialTemplate)?.[1];
  if (dialed !== undefined && !gateways.some((g) => attribute(g, 'name') === dialed)) {
    problems.push(
      `sofia.conf.xml has no gateway ${dialed}, which DIAL_STRING_TEMPLATE (${dialTemplate}) dials`,
    );
  }

  problems.push(...checkRtpTimer(sofia));

  const mode = pod.mediaNode.env.get('RECORDING_MODE') ?? 'off';
  problems.push(...checkAudioStream(configuration('modules.conf'), mode, expected?.mediaStreams));
  problems.push(...checkRecordings(pod, mode));
  if (!expected) return problems;

  const core = params(children(configuration('switch.conf') ?? {}, 'settings')[0]);
  for (const [param, value] of [
    ['sessions-per-second', expected.sessionsPerSecond],
    ['max-sessions', expected.maxSessions],
  ] as const) {
    if (core.get(param) !== String(value))
      problems.push(`switch.conf.xml: ${param} is ${core.get(param) ?? 'unset'}, not ${value}`);
  }
  if (mode !== expected.recordingMode)
    problems.push(`RECORDING_MODE of the media node is ${mode}, not ${expected.recordingMode}`);
  problems.push(...checkTrunk(gateways, globals, expected.trunk));
  return problems;
}

/** Every SIP profile's RTP paced by the soft timer. */
function checkRtpTimer(sofia: XmlElement | undefined): string[] {
  const profiles = descendants(sofia ?? {}, 'profile');
  if (profiles.length === 0) return ['sofia.conf.xml: no SIP profile'];
  return profiles.flatMap((profile) => {
    const timer = params(children(profile, 'settings')[0]).get('rtp-timer-name');
    return timer === 'soft'
      ? []
      : [
          `sofia.conf.xml profile ${attribute(profile, 'name')}: rtp-timer-name is ` +
            `${timer ?? 'unset'}, must be soft`,
        ];
  });
}

/** The event socket's password as FreeSWITCH resolves it: never empty, the node's own. */
function checkEslPassword(pod: FreeswitchPod, eventSocket: XmlElement | undefined): string[] {
  const problems: string[] = [];
  const written = params(children(eventSocket ?? {}, 'settings')[0]).get('password');
  if (written === undefined) return ['event_socket.conf.xml: no password'];
  const vars = pod.files.get('vars.xml') ?? '';
  // However the environment is left: its variables unset, or set but empty.
  const read = [...vars.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1] ?? '');
  const emptied = new Map([...pod.freeswitch.env.keys(), ...read].map((name) => [name, '']));
  for (const [left, env] of [
    ['unset', new Map<string, string>()],
    ['empty', emptied],
  ] as const) {
    const password = expand(written, globalVariables(vars, env));
    if (password === '' || password === 'ClueCon')
      problems.push(
        `event_socket.conf.xml: with its environment ${left}, the password is "${password}"`,
      );
  }
  const password = expand(written, globalVariables(vars, pod.freeswitch.env));
  const nodes = pod.mediaNode.env.get('FS_ESL_PASSWORD');
  if (nodes !== undefined && password !== nodes)
    problems.push("event_socket.conf.xml: the password is not the media node's FS_ESL_PASSWORD");
  if (nodes === '') problems.push('the media node has an empty FS_ESL_PASSWORD');
  return problems;
}

/**
 * mod_audio_stream exactly when something streams with it: stream-mode recordings or media
 * streams. Without an expectation, whether media streams were asked for is unknown, and only
 * the recordings' need is checked.
 */
function checkAudioStream(
  modules: XmlElement | undefined,
  mode: string,
  mediaStreams: boolean | undefined,
): string[] {
  const loaded = descendants(modules ?? {}, 'load').some(
    (l) => attribute(l, 'module') === 'mod_audio_stream',
  );
  const users = [
    ...(mode === 'stream' ? [`RECORDING_MODE ${mode}`] : []),
    ...(mediaStreams === true ? ['media streams on'] : []),
  ];
  if (users.length > 0 && !loaded)
    return [`modules.conf.xml must load mod_audio_stream (${users.join(', ')})`];
  if (users.length === 0 && loaded && mediaStreams === false)
    return [
      `modules.conf.xml must not load mod_audio_stream (RECORDING_MODE ${mode}, media streams off)`,
    ];
  return [];
}

/** The api and the node agree on the mode; in file mode FreeSWITCH writes into the volume. */
function checkRecordings(pod: FreeswitchPod, mode: string): string[] {
  const problems: string[] = [];
  const apiMode = pod.api.env.get('RECORDING_MODE') ?? 'off';
  if (apiMode !== mode) problems.push(`RECORDING_MODE: the api's ${apiMode}, the node's ${mode}`);
  if (mode === 'off') return problems;

  const volume = pod.recordingsVolume;
  const dir = pod.mediaNode.env.get('RECORDINGS_DIR');
  for (const [who, container, env] of [
    ['the media node', pod.mediaNode, 'RECORDINGS_DIR'],
    ['the api', pod.api, 'RECORDINGS_DIR'],
  ] as const) {
    const mounted = container.mounts.get(volume);
    if (mounted === undefined || mounted !== container.env.get(env))
      problems.push(`${who} must mount ${volume} at its ${env} (${container.env.get(env)})`);
  }
  if (mode === 'file') {
    const writes = pod.mediaNode.env.get('FS_RECORDINGS_DIR') ?? dir;
    const mounted = pod.freeswitch.mounts.get(volume);
    if (mounted === undefined || mounted !== writes) {
      problems.push(
        `file mode: FreeSWITCH writes into ${writes} (FS_RECORDINGS_DIR, else RECORDINGS_DIR), ` +
          `where its container mounts ${mounted === undefined ? `no ${volume}` : mounted}`,
      );
    }
  }
  return problems;
}

/** The profile's gateways: the trunk's alone, each setting what the values asked for. */
function checkTrunk(
  gateways: readonly XmlElement[],
  globals: ReadonlyMap<string, string>,
  trunk: FreeswitchExpectation['trunk'],
): string[] {
  const names = gateways.map((g) => attribute(g, 'name'));
  if (!trunk)
    return names.length === 0 ? [] : [`sofia.conf.xml: unexpected gateways ${names.join(', ')}`];
  const gateway = gateways.find((g) => attribute(g, 'name') === trunk.name);
  if (!gateway || names.length !== 1)
    return [`sofia.conf.xml: gateways ${names.join(', ') || 'none'}, not ${trunk.name} alone`];
  const written = params(gateway);
  const problems: string[] = [];
  for (const [param, value] of Object.entries(trunk.settings)) {
    if (value === undefined) continue;
    const resolved = expand(written.get(param) ?? '', globals);
    if (resolved !== value) {
      problems.push(
        `gateway ${trunk.name}: ${param} resolves to "${resolved}" (${written.get(param) ?? 'unset'}), not "${value}"`,
      );
    }
  }
  return problems;
}
