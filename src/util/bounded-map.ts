/**
 * Sets `key` in a Map used as a small cache, dropping the oldest entry (insertion order) once it
 * holds more than `max`. Returns the value, so a lookup can fill and answer in one expression.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
  return value;
}
