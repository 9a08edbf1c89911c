// Long synchronous walks (folder indexes) yield to the event loop in slices, so a request that
// arrives meanwhile is answered within a slice, not after the walk.

export interface Slicer {
  /** Called between steps: a promise to await when the slice is spent, else undefined. */
  pause: () => Promise<void> | undefined;
  /** Whether any pause actually yielded. */
  yielded: () => boolean;
}

export function slicer(sliceMs: number): Slicer {
  let slice = performance.now();
  let yielded = false;
  let steps = 0;
  return {
    pause: () => {
      if (++steps % 64 !== 0 || performance.now() - slice <= sliceMs) return undefined;
      yielded = true;
      return new Promise<void>((r) => setImmediate(r)).then(() => {
        slice = performance.now();
      });
    },
    yielded: () => yielded,
  };
}
