import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERRORS } from './catalogue.js';

/**
 * `npm run errors:doc` writes docs/errors.md from the error catalogue; `npm run errors:check`
 * (CI) fails when the committed page differs, so the page cannot drift from what clients get.
 */

const DOC_FILE = fileURLToPath(new URL('../../../docs/errors.md', import.meta.url));
const DISPLAY_PATH = 'docs/errors.md';

const HEADER = `# Errors

Every error the api answers has the body \`{"success": false, "error": "<message>"}\` (dial errors
add \`code\`), with the status and exact message below. Branch on the status (and \`code\` where
given), not on the message text. The catalogue code names the error in the source and the logs. \`429\` answers carry \`Retry-After\` in seconds.

This page is generated from \`shared/src/errors/catalogue.ts\` by \`npm run errors:doc\`; CI fails when
it is out of date.

| status | catalogue code | message | when |
| --- | --- | --- | --- |
`;

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The page: one row per catalogue entry, by status, then in catalogue order. */
export function renderErrorsDoc(): string {
  const rows = Object.entries(ERRORS)
    .map(([code, entry], index) => ({ code, entry, index }))
    .sort((a, b) => a.entry.status - b.entry.status || a.index - b.index)
    .map(
      ({ code, entry }) =>
        `| ${entry.status} | \`${code}\` | ${cell(entry.message)} | ${cell(entry.when)} |`,
    );
  return `${HEADER}${rows.join('\n')}\n`;
}

async function main(check: boolean): Promise<number> {
  const generated = renderErrorsDoc();
  if (!check) {
    await writeFile(DOC_FILE, generated);
    console.log(`wrote ${DISPLAY_PATH}`);
    return 0;
  }
  const committed = await readFile(DOC_FILE, 'utf8').catch(() => undefined);
  if (committed === generated) {
    console.log(`${DISPLAY_PATH} is up to date`);
    return 0;
  }
  console.error(
    `${DISPLAY_PATH} differs from the error catalogue. Run \`npm run errors:doc\` and commit it.`,
  );
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.includes('--check')).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
