/** One line of events.jsonl: seq, sessionId, ts, type, data. */
export type LoggedEvent = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Where ferret keeps a session's events.jsonl under CHIMERA_HOME. */
export declare function eventsPath(home: string, sessionId: string): string;
/** Every whole line of a session's events.jsonl, parsed ([] when there is none; a torn tail is dropped, as a loader would). */
export declare function readEvents(home: string, sessionId: string): LoggedEvent[];
