import { MediaUnavailableError, type MediaCache } from '../media/cache.js';
import type { Session } from '../session/session.js';

/** The outcome of fetching a command's audio into the cache before its deadline. */
export type FetchedAudio =
  | { readonly kind: 'ready'; readonly paths: string[] }
  | { readonly kind: 'missing'; readonly urls: readonly string[] }
  | { readonly kind: 'late' };

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Fetches every URL into the local cache, or gives up at `deadline` (epoch ms). A late fetch goes
 * on into the cache for the next command, and its hold on the files is released when it lands.
 */
export async function fetchAudio(
  media: MediaCache,
  urls: readonly string[],
  deadline: number,
): Promise<FetchedAudio> {
  const fetching = media.acquire(urls);
  const outcome = await Promise.race([
    fetching.then(
      (paths): FetchedAudio => ({ kind: 'ready', paths }),
      (err: unknown): FetchedAudio => ({
        kind: 'missing',
        urls: err instanceof MediaUnavailableError ? err.urls : urls,
      }),
    ),
    sleep(deadline - Date.now()).then((): FetchedAudio => ({ kind: 'late' })),
  ]);
  if (outcome.kind === 'late') fetching.then(() => media.release(urls)).catch(() => undefined);
  return outcome;
}

/** `playback.file_not_found` for the URLs that could not be fetched. */
export async function publishFileNotFound(
  session: Session,
  commandUid: string,
  urls: readonly string[],
): Promise<void> {
  await session.publish({
    event: 'playback.file_not_found',
    session_uuid: session.id,
    command_uid: commandUid,
    urls: [...urls],
    file_path: urls.join(','),
  });
}
