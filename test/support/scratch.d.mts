/**
 * A root (made if missing) for folders that must be really outside the sandbox's reach: the repo's
 * git-ignored .tmp/ unless the clone itself lives under a masked folder (CI may clone into /tmp),
 * then a folder under the home directory; `sub` names a folder inside it.
 */
export declare function scratchRoot(sub?: string): string;
