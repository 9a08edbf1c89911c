import type { Tool } from './define.js';
import { bashTool } from './bash.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';
import { editFileTool } from './edit-file.js';
import { listDirTool } from './list-dir.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { openFileTool } from './open-file.js';
import { updatePlanTool } from './update-plan.js';
import { multiEditTool } from './multi-edit.js';
import { applyPatchTool } from './apply-patch.js';
import { defaultTaskTool } from './task.js';
import { processInputTool, processKillTool, processOutputTool } from './processes/process-tools.js';
import { webFetchTool } from './web/web-fetch.js';

export const BUILTIN_TOOLS: readonly Tool[] = [
  bashTool,
  readFileTool,
  writeFileTool,
  editFileTool,
  multiEditTool,
  applyPatchTool,
  listDirTool,
  globTool,
  grepTool,
  openFileTool,
  updatePlanTool,
  defaultTaskTool,
  processOutputTool,
  processInputTool,
  processKillTool,
  webFetchTool,
];

export const BUILTIN_TOOL_IDS = BUILTIN_TOOLS.map((t) => t.id);

/** The tools a session offers: built-ins plus any MCP tools, filtered by --allowed-tools. */
export class ToolRegistry {
  private readonly byId = new Map<string, Tool>();

  constructor(
    tools: readonly Tool[],
    private readonly allowed?: readonly string[],
  ) {
    const allow = allowed?.map((t) => t.toLowerCase());
    for (const t of tools) if (!allow || allow.includes(t.id.toLowerCase())) this.byId.set(t.id, t);
  }

  /** A tool that exists but that --allowed-tools took away. */
  isFiltered(id: string): boolean {
    return !this.get(id) && BUILTIN_TOOL_IDS.includes(id.toLowerCase());
  }

  get(id: string): Tool | undefined {
    return this.byId.get(id) ?? [...this.byId.values()].find((t) => t.id.toLowerCase() === id.toLowerCase());
  }

  list(): Tool[] {
    return [...this.byId.values()];
  }

  /** The tools that pass `keep` (a subagent's share), without the --allowed-tools filter: they passed it here. */
  only(keep: (t: Tool) => boolean): ToolRegistry {
    return new ToolRegistry(this.list().filter(keep));
  }

  with(extra: readonly Tool[]): ToolRegistry {
    return new ToolRegistry([...this.byId.values(), ...extra], this.allowed);
  }
}
