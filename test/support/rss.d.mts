/** A process's resident set size in KiB, from /proc (Linux): what the memory checks and benchmarks measure. */
export declare function rssKiB(pid: number): number;
