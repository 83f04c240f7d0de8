import { fileURLToPath } from 'node:url';
import { generatedFileScript, type GeneratedFile } from './generated-file.js';
import { ERRORS } from '@voicegw/api';

/**
 * `npm run errors:doc` writes docs/errors.md from the error catalogue; `npm run errors:check`
 * (CI) fails when the committed page differs, so the page cannot drift from what clients get.
 */

const ERRORS_DOC: GeneratedFile = {
  path: fileURLToPath(new URL('../../../docs/errors.md', import.meta.url)),
  name: 'docs/errors.md',
  source: 'the error catalogue',
  command: 'npm run errors:doc',
};

const HEADER = `# Errors

Every error the api answers has the body \`{"success": false, "error": "<message>"}\` (dial errors
add \`code\`), with the status and exact message below. Branch on the status (and \`code\` where
given), not on the message text. The catalogue code names the error in the source and the logs. \`429\` answers carry \`Retry-After\` in seconds.

This page is generated from \`api/src/errors/catalogue.ts\` by \`npm run errors:doc\`; CI fails when
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

generatedFileScript(import.meta.url, ERRORS_DOC, renderErrorsDoc);
