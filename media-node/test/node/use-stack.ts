// The suite fixtures of the end-to-end tests: each starts in `beforeAll` and stops in `afterAll`,
// and what it returns may be read in tests and in hooks registered after it (vitest runs
// `beforeAll` hooks in order and `afterAll` hooks in reverse).
import { afterAll, beforeAll } from 'vitest';
import { slot } from '@voicegw/tools';
import {
  startAudioServer,
  startStack,
  type AudioServer,
  type Stack,
  type StackOptions,
  type Tenant,
  type TenantOptions,
} from './harness.js';

/** The suite's stack; `options` may be a function when it depends on an earlier hook. */
export function useStack(options: StackOptions | (() => StackOptions) = {}): Stack {
  const stack = slot<Stack>('useStack()');
  beforeAll(async () =>
    stack.set(await startStack(typeof options === 'function' ? options() : options)),
  );
  afterAll(() => stack.value.close());
  return stack.value;
}

/** The suite's app on `stack` (from useStack), with its numbers and webhook URL. */
export function useTenant(
  stack: Stack,
  options: TenantOptions | (() => TenantOptions) = {},
): Tenant {
  const tenant = slot<Tenant>('useTenant()');
  beforeAll(async () =>
    tenant.set(await stack.tenant(typeof options === 'function' ? options() : options)),
  );
  return tenant.value;
}

/** The suite's audio server (see startAudioServer). */
export function useAudio(): AudioServer {
  const audio = slot<AudioServer>('useAudio()');
  beforeAll(async () => audio.set(await startAudioServer()));
  afterAll(() => audio.value.close());
  return audio.value;
}
