// cJSON_Print's formatted layout (tabs, `"key":\tvalue`), which json_list answers with.

export function cjsonPrint(value: unknown, depth = 0): string {
  const pad = '\t'.repeat(depth + 1);
  const close = '\t'.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return '[' + value.map((v) => cjsonPrint(v, depth + 1)).join(', ') + ']';
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return `{\n${close}}`;
    const body = entries
      .map(([k, v]) => `${pad}${JSON.stringify(k)}:\t${cjsonPrint(v, depth + 1)}`)
      .join(',\n');
    return `{\n${body}\n${close}}`;
  }
  return JSON.stringify(value);
}
