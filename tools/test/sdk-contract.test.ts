import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CONTRACT_FILE, contractText } from '../src/generate/sdk-contract.js';

describe('sdk/src/contract.ts', () => {
  it('is what docs/openapi.json and the event schemas generate (run `npm run openapi` when not)', async () => {
    expect(await readFile(CONTRACT_FILE, 'utf8')).toBe(await contractText());
  });
});
