/** The value kept under `key`, made and kept when missing: the few laws a request explores, reused across requests. */
export function remembered<T>(cache: Map<string, T>, key: string, make: () => T, size = 64): T {
  return cache.get(key) ?? remember(cache, key, make(), size);
}

/** Keeps `value` under `key`, dropping the oldest entry once `size` are kept. */
export function remember<T>(cache: Map<string, T>, key: string, value: T, size = 64): T {
  if (cache.size >= size) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}
