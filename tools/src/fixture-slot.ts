/**
 * Stands for a value that a suite's `beforeAll` makes: a fixture hands its test file this proxy
 * at collection time, and every property read is forwarded to the value once `get()` has one
 * (before that, `get()` throws, naming the fixture used outside a test).
 */
export function late<T extends object>(get: () => T): T {
  const forwarded = (key: string | symbol): unknown => {
    const target = get();
    const value: unknown = Reflect.get(target, key, target);
    return typeof value === 'function'
      ? (value as (...a: unknown[]) => unknown).bind(target)
      : value;
  };
  return new Proxy({} as T, {
    get: (_, key) => forwarded(key),
    has: (_, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(get(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/** A fixture's value, set by its `beforeAll`; reading it earlier says which fixture it was. */
export function slot<T extends object>(fixture: string): { set(value: T): void; value: T } {
  let current: T | undefined;
  return {
    set: (value) => {
      current = value;
    },
    value: late(() => {
      if (current === undefined) throw new Error(`${fixture}: read before its beforeAll ran`);
      return current;
    }),
  };
}
