import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

/**
 * A file the repository commits and a script generates (docs/openapi.json, docs/errors.md, the
 * SDK's contract): the script writes it, or with `--check` (CI) fails when the committed file
 * differs, so that it cannot drift from what it is generated from.
 */
export interface GeneratedFile {
  /** Where it is written. */
  readonly path: string;
  /** Its path as the repository shows it, for messages. */
  readonly name: string;
  /** What it is generated from, for messages: `the error catalogue`. */
  readonly source: string;
  /** The command that writes it. */
  readonly command: string;
  /** Which parts moved, for a check that can tell (the openapi document: its operations). */
  readonly describeDrift?: (committed: string, generated: string) => string;
}

export interface CheckResult {
  readonly upToDate: boolean;
  /** What to tell the person running the check; names the command that fixes a drift. */
  readonly message: string;
}

/** Compares generated text with the committed file; a test passes another `path` for it. */
export async function checkGenerated(
  file: GeneratedFile,
  generated: string,
  path = file.path,
): Promise<CheckResult> {
  const committed = await readFile(path, 'utf8').catch(() => undefined);
  if (committed === generated) return { upToDate: true, message: `${file.name} is up to date` };
  const problem =
    committed === undefined
      ? `${file.name} is missing.`
      : `${file.name} is out of date with ${file.source}` +
        (file.describeDrift ? `:\n${file.describeDrift(committed, generated)}` : '.');
  return {
    upToDate: false,
    message: `${problem}\nRun \`${file.command}\` and commit ${file.name}.`,
  };
}

/**
 * The script's entry point, when the module at `moduleUrl` is the one Node runs: writes the file,
 * or checks it with `--check`; the exit code says whether it was up to date.
 */
export function generatedFileScript(
  moduleUrl: string,
  file: GeneratedFile,
  generate: () => Promise<string> | string,
): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const check = process.argv.includes('--check');
  void (async () => {
    const generated = await generate();
    if (!check) {
      await writeFile(file.path, generated);
      console.log(`wrote ${file.name}`);
      return;
    }
    const result = await checkGenerated(file, generated);
    if (result.upToDate) {
      console.log(result.message);
    } else {
      console.error(result.message);
      process.exitCode = 1;
    }
  })().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
