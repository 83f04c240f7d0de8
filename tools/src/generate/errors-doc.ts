import { fileURLToPath } from 'node:url';
import { generatedFileScript, type GeneratedFile } from './generated-file.js';
import { errorCode, ERRORS, type ErrorName } from '@voicegw/api';

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

Every error the api answers has the body
\`{"success": false, "error": "<message>", "code": "<code>"}\`, with the status, code and message
below. Branch on \`code\`, never on the message text: a code is stable across releases, and some
messages say what was wrong (\`validation_failed\` names the field). A few errors add fields of
their own (\`detail\`, \`app_id\`: see docs/openapi.json); \`429\` answers carry \`Retry-After\` in
seconds.

This page is generated from \`api/src/errors/catalogue.ts\`, where each code is its entry's name in
upper case, by \`npm run errors:doc\`; CI fails when it is out of date.

| status | code | message | when |
| --- | --- | --- | --- |
`;

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The page: one row per catalogue entry, by status, then in catalogue order. */
export function renderErrorsDoc(): string {
  const rows = (Object.keys(ERRORS) as ErrorName[])
    .map((name, index) => ({ code: errorCode(name), entry: ERRORS[name], index }))
    .sort((a, b) => a.entry.status - b.entry.status || a.index - b.index)
    .map(
      ({ code, entry }) =>
        `| ${entry.status} | \`${code}\` | ${cell(entry.message)} | ${cell(entry.when)} |`,
    );
  return `${HEADER}${rows.join('\n')}\n`;
}

generatedFileScript(import.meta.url, ERRORS_DOC, renderErrorsDoc);
