// grep's hits from ripgrep's parallel walk arrive in whatever order its threads finish. They are
// held here and handed to the Collector in path order at the end, so a page is the same every
// time (what `--sort path` gave, at the cost of running ripgrep on one thread: ~1.7× slower on
// a 100,000-file tree). Only the first hits in path order can be shown, so the buffer is trimmed
// to them whenever it grows past twice what the page needs: memory stays bounded by the page.
import type { Collector, FileHits } from './results.js';
import { unitsOf } from './results.js';
import { compareNames } from './scope.js';

/**
 * Path order as ripgrep's `--sort path` walk gives it: folder by folder, each folder's names in
 * byte order, so `a/b` comes before `a.c` (the name `a` is shorter than `a.c`). Comparing with
 * `/` as the lowest byte gives exactly that; UTF-8 never has a `/` byte inside a character.
 */
export function comparePaths(a: string, b: string): number {
  return compareKeys(pathKey(a), pathKey(b));
}

/** A path's sort key, made once per file: a sort compares each key ~log n times. */
interface PathKey {
  /** The path with `/` as NUL. */
  k: string;
  /** ASCII only: plain string order is byte order. */
  ascii: boolean;
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
const pathKey = (p: string): PathKey => {
  const k = p.replaceAll('/', '\0');
  return { k, ascii: ASCII.test(k) };
};
const compareKeys = (a: PathKey, b: PathKey): number => (a.ascii && b.ascii ? (a.k < b.k ? -1 : a.k > b.k ? 1 : 0) : compareNames(a.k, b.k));

interface Held {
  key: PathKey;
  hits: FileHits;
  units: number;
}

export class SortedHits {
  private held: Held[] = [];
  private units = 0;

  constructor(private readonly collector: Collector) {}

  /** Holds one file's hits (`relToRoot` orders it). */
  add(relToRoot: string, hits: FileHits): void {
    const units = unitsOf(this.collector.paging.mode, hits);
    if (units === 0) return;
    this.held.push({ key: pathKey(relToRoot), hits, units });
    this.units += units;
    if (this.units > 2 * this.collector.need + 64) this.trim();
  }

  /** Keeps the shortest prefix in path order that still fills the page and says there is more. */
  private trim(): void {
    this.held.sort((x, y) => compareKeys(x.key, y.key));
    let units = 0;
    let keep = 0;
    while (keep < this.held.length && units < this.collector.need) units += this.held[keep++]!.units;
    this.held.length = keep;
    this.units = units;
  }

  /** Hands the held hits to the collector in path order. */
  flush(): void {
    this.held.sort((x, y) => compareKeys(x.key, y.key));
    for (const h of this.held) if (this.collector.add(h.hits)) break;
    this.held = [];
    this.units = 0;
  }
}
