import { useEffect, useReducer, useRef } from 'preact/hooks';

/** Re-renders when `subscribe`'s source changes, at most once per animation frame (a fast stream stays smooth). */
export function useSubscription(subscribe: ((fn: () => void) => () => void) | undefined): void {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (!subscribe) return;
    let frame = 0;
    const off = subscribe(() => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        bump(undefined);
      });
    });
    return () => {
      off();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [subscribe]);
}

/** Calls `fn` now and every `ms` while mounted (and while the tab is visible). */
export function usePolling(fn: () => void | Promise<void>, ms: number, deps: unknown[]): void {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState !== 'hidden') await Promise.resolve(latest.current()).catch(() => undefined);
      if (!stopped) timer = setTimeout(() => void tick(), ms);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, deps);
}
