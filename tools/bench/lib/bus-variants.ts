/**
 * An event bus under test: `EVENT_BUS` and the settings its dispatcher runs with, as the
 * dispatcher's environment (docs/configuration.md names every variable).
 */
export interface BusVariant {
  /** As given to `--bus`, e.g. `kafka:KAFKA_MAX_WAIT_MS=10`. */
  readonly label: string;
  readonly bus: 'redis' | 'kafka';
  /** Dispatcher environment: EVENT_BUS, the settings given and, for Kafka, KAFKA_BROKERS. */
  readonly env: Readonly<Record<string, string>>;
}

export class BusVariantError extends Error {
  override name = 'BusVariantError';
}

const NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * `redis`, `kafka` or either with settings: `kafka:KAFKA_MAX_WAIT_MS=10,KAFKA_PARTITIONS=4`.
 * Kafka takes its brokers from `KAFKA_BROKERS` in `env` unless the settings name them. The
 * dispatcher validates the values when it starts; only the shape is checked here.
 */
export function parseBusVariant(spec: string, env: NodeJS.ProcessEnv): BusVariant {
  const [bus = '', settings = ''] = splitOnce(spec.trim(), ':');
  if (bus !== 'redis' && bus !== 'kafka') {
    throw new BusVariantError(`--bus ${spec}: the bus is redis or kafka`);
  }
  const vars: Record<string, string> = { EVENT_BUS: bus };
  for (const pair of settings.split(',').filter((p) => p !== '')) {
    const [name = '', value] = splitOnce(pair, '=');
    if (!NAME.test(name) || value === undefined || value === '') {
      throw new BusVariantError(`--bus ${spec}: settings are NAME=value, comma-separated`);
    }
    vars[name] = value;
  }
  if (bus === 'kafka') {
    const brokers = vars.KAFKA_BROKERS ?? env.KAFKA_BROKERS;
    if (!brokers) throw new BusVariantError(`--bus ${spec}: set KAFKA_BROKERS=host:port,...`);
    vars.KAFKA_BROKERS = brokers;
  }
  return { label: spec.trim(), bus, env: vars };
}

/**
 * The buses a run compares: the Redis bus with its defaults first (the reference every other is
 * read against, measured in the same rounds), then each `--bus` given, without repeats.
 */
export function busVariants(specs: readonly string[], env: NodeJS.ProcessEnv): BusVariant[] {
  if (specs.length === 0) return [];
  const variants = [parseBusVariant('redis', env)];
  for (const spec of specs) {
    const variant = parseBusVariant(spec, env);
    if (!variants.some((v) => v.label === variant.label)) variants.push(variant);
  }
  return variants;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
