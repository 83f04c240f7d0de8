// tone_stream:// (FreeSWITCH's teletone markup, TGML), the subset a gateway plays: segments
// `%(on_ms,off_ms,hz[,hz…])` separated by `;`, repeated `loops=N` times (`-1`: for ever; `L=N`
// alike); other directives (volume, rate) are accepted and ignored. Played, a tone is written
// into what the call hears, frame by frame, while its playback runs: a ringback is audible in
// heard.wav and to a call bridged over the trunk.
import { FRAME_MS, FRAME_SAMPLES, nowSample, slotOf } from './clock.js';
import type { Player } from './player.js';
import type { CallAudio } from './call-audio.js';

/** A tone of `hz` (one or more, summed) for `onMs`, then `offMs` of silence. */
interface Segment {
  readonly onMs: number;
  readonly offMs: number;
  readonly hz: readonly number[];
}

export interface TonePattern {
  readonly segments: readonly Segment[];
  /** One pass over the segments. */
  readonly cycleMs: number;
  /** Infinity for loops=-1. */
  readonly durationMs: number;
}

const AMPLITUDE = 8000;
const SEGMENT = /^%\((\d+),(\d+),([\d.]+(?:,[\d.]+)*)\)$/;

export function parseToneStream(spec: string): TonePattern | undefined {
  const segments: Segment[] = [];
  let loops = 1;
  for (const part of spec.replace(/^tone_stream:\/\//, '').split(';')) {
    const item = part.trim();
    const loop = /^(?:loops|L)=(-?\d+)$/.exec(item);
    if (loop) {
      loops = Number(loop[1]);
      continue;
    }
    const m = SEGMENT.exec(item);
    if (m) {
      segments.push({
        onMs: Number(m[1]),
        offMs: Number(m[2]),
        hz: (m[3] ?? '').split(',').map(Number),
      });
    }
  }
  const cycleMs = segments.reduce((sum, s) => sum + s.onMs + s.offMs, 0);
  if (cycleMs === 0) return undefined;
  return { segments, cycleMs, durationMs: loops < 0 ? Infinity : cycleMs * Math.max(1, loops) };
}

/** The samples of the pattern over one frame that starts `atMs` into it. */
function frameAt(pattern: TonePattern, atMs: number): Int16Array {
  const out = new Int16Array(FRAME_SAMPLES);
  for (let i = 0; i < FRAME_SAMPLES; i++) {
    const t = atMs + (i * FRAME_MS) / FRAME_SAMPLES;
    let into = t % pattern.cycleMs;
    for (const seg of pattern.segments) {
      if (into < seg.onMs) {
        const v = seg.hz.reduce((sum, hz) => sum + Math.sin((2 * Math.PI * hz * t) / 1000), 0);
        out[i] = Math.round((v / seg.hz.length) * AMPLITUDE);
        break;
      }
      into -= seg.onMs + seg.offMs;
      if (into < 0) break;
    }
  }
  return out;
}

/** Writes a playing tone into the call, one frame per tick while its player runs, until it ends. */
export function writeTone(pattern: TonePattern, player: Player, audio: CallAudio): void {
  let next = slotOf(nowSample());
  let playedMs = 0;
  const timer = setInterval(() => {
    for (const now = slotOf(nowSample()); next < now; next += FRAME_SAMPLES) {
      if (!player.isRunning) continue;
      audio.hear(next, frameAt(pattern, playedMs));
      playedMs += FRAME_MS;
    }
  }, FRAME_MS);
  timer.unref();
  const stop = (): void => clearInterval(timer);
  player.finished.then(stop, stop);
}
