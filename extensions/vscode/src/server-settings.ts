// What starts a chimera server, as data: kept apart from config.ts (which reads it from VS Code)
// so the session code that only passes it around can be type-checked and tested without VS Code.
export interface ServerSettings {
  command: string;
  args: string[];
  env: Record<string, string>;
}
