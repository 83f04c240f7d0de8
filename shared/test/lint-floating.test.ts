import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The project's lint config refuses the fire-and-forget shapes that let a rejection go unhandled
// (which ends a Node process): a real file of the project, linted with other text.
const root = resolve(import.meta.dirname, '../..');
const file = resolve(root, 'shared/src/async/background.ts');

async function restricted(code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: file });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

const prelude = `declare const p: Promise<void>;
declare const session: { serial(task: () => Promise<void>): Promise<void> };
declare const settle: () => void;
export {};
`;

describe('lint: no promise left to reject unhandled', () => {
  it.each([
    ['void p.finally(settle)', /void p\.finally/],
    ['void p.then(settle)', /void p\.then/],
    ['void session.serial(async () => undefined)', /session\.enqueue/],
  ])(
    'refuses %s',
    async (line, message) => {
      expect(await restricted(`${prelude}${line};\n`)).toEqual([expect.stringMatching(message)]);
    },
    60_000,
  );

  it('accepts a handled chain', async () => {
    expect(await restricted(`${prelude}void p.then(settle, settle);\n`)).toEqual([]);
  }, 60_000);
});
