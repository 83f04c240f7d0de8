// Reading a FreeSWITCH configuration as FreeSWITCH would: each file parsed as XML, the global
// variables that vars.xml's X-PRE-PROCESS lines set from the container's environment, and
// `$${name}` expanded with them (switch_xml.c: `set` takes the value as written, `env-set`
// `name=$VAR` copies VAR when it is set, `exec-set` runs a shell command and takes its output).
import { execFileSync } from 'node:child_process';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** An element as fast-xml-parser gives it: attributes under `@name`, children as arrays. */
export type XmlElement = Readonly<Record<string, unknown>>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (_tag, _path, _leaf, isAttribute) => !isAttribute,
});

/** The file's document, or why it is not well-formed XML. */
export function parseXml(text: string): XmlElement | string {
  const valid = XMLValidator.validate(text);
  if (valid !== true) return `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`;
  return parser.parse(text) as XmlElement;
}

const isElement = (value: unknown): value is XmlElement =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The direct children of `element` named `tag`. */
export function children(element: XmlElement, tag: string): XmlElement[] {
  const value = element[tag];
  return Array.isArray(value) ? value.filter(isElement) : [];
}

/** Every element named `tag` at any depth under `element`, in document order. */
export function descendants(element: XmlElement, tag: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const [key, value] of Object.entries(element)) {
    if (key.startsWith('@') || !Array.isArray(value)) continue;
    for (const child of value.filter(isElement)) {
      if (key === tag) found.push(child);
      found.push(...descendants(child, tag));
    }
  }
  return found;
}

export const attribute = (element: XmlElement, name: string): string | undefined => {
  const value = element[`@${name}`];
  return typeof value === 'string' ? value : undefined;
};

/** The `<param name value>` children of `element`, by name. */
export function params(element: XmlElement | undefined): Map<string, string> {
  const found = new Map<string, string>();
  for (const param of element ? children(element, 'param') : []) {
    const name = attribute(param, 'name');
    if (name !== undefined) found.set(name, attribute(param, 'value') ?? '');
  }
  return found;
}

/** `$${name}` replaced by the global variable, or by nothing when it is not set. */
export const expand = (value: string, globals: ReadonlyMap<string, string>): string =>
  value.replace(/\$\$\{([^}]+)\}/g, (_match, name: string) => globals.get(name) ?? '');

/**
 * The global variables vars.xml sets when FreeSWITCH starts with the environment `env`.
 * `exec-set` commands run here with /bin/sh, as FreeSWITCH runs them.
 */
export function globalVariables(
  varsXml: string,
  env: ReadonlyMap<string, string>,
): Map<string, string> {
  const globals = new Map<string, string>();
  const document = parseXml(varsXml);
  if (typeof document === 'string') return globals;
  for (const line of descendants(document, 'X-PRE-PROCESS')) {
    const data = expand(attribute(line, 'data') ?? '', globals);
    const split = data.indexOf('=');
    if (split < 0) continue;
    const name = data.slice(0, split).trim();
    const value = data.slice(split + 1).trim();
    switch (attribute(line, 'cmd')) {
      case 'set':
        globals.set(name, value);
        break;
      case 'env-set': {
        const from = value.startsWith('$') ? env.get(value.slice(1)) : undefined;
        if (from !== undefined) globals.set(name, from);
        break;
      }
      case 'exec-set':
        globals.set(name, run(value, env));
        break;
    }
  }
  return globals;
}

function run(command: string, env: ReadonlyMap<string, string>): string {
  const output = execFileSync('/bin/sh', ['-c', command], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...Object.fromEntries(env) },
    encoding: 'utf8',
  });
  return output.replace(/\n$/, '');
}
