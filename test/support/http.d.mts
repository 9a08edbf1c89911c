import type { StderrLog } from './stderr-log.mjs';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ApiResponse {
  status: number;
  /** The parsed body; {raw: text} when it is not JSON, {} when empty. */
  body: Json;
  headers: Headers;
  text: string;
}
/** One JSON request (Bearer token when given): the status, the parsed body ({raw} when not JSON, {} when empty), headers and text. */
export declare function api(url: string, method: string, path: string, body?: unknown, token?: string, headers?: Record<string, string>): Promise<ApiResponse>;
/** The URL a `--http` server reports in its `"msg":"listening"` log line (needs FERRET_LOG_LEVEL info or lower). */
export declare function listeningUrl(log: StderrLog, timeoutMs?: number): Promise<string>;
