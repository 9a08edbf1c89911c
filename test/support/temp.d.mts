/** A temp CHIMERA_HOME and workspace; cleanup() removes both. */
export interface TempEnv {
  home: string;
  ws: string;
  cleanup: () => void;
}

/** A fresh folder `ferret-NAME-XXXXXX` (real path) under parent (default the OS temp dir), removed at exit unless removeAtExit is false. */
export declare function tempDir(name: string, opts?: { parent?: string; removeAtExit?: boolean }): string;
/** Removes a folder (one tempDir made, or any) and forgets it. */
export declare function removeDir(dir: string): void;
/** Removes every temp folder still around: teardown for scripts, and what runs at process exit. */
export declare function removeTempDirs(): void;
/** A temp CHIMERA_HOME and workspace for one test or run; cleanup() removes both. */
export declare function tempEnv(): TempEnv;
/** Writes a scripted-model file (docs/scripted-model.md) and returns its path, for `--model scripted:PATH`. */
export declare function writeScript(dir: string, name: string, script: unknown): string;
