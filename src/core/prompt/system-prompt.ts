// The system prompt as one pure function of its parts: the mode's guidance, the built-in tools,
// the model family's notes, the environment block and the project instructions. No clock, no
// disk, no git here: the session gathers those once (../system-prompt.ts), so equal parts give
// equal bytes, call after call.
import type { AgentMode } from '../../protocol/index.js';
import { CODE_FINISH, CODE_GIT, CODE_INTRO, CODE_WORKING } from './base-code.js';
import { PLAN_FINISH, PLAN_INTRO, PLAN_WORKING } from './base-plan.js';
import { renderEnvironment, type EnvFacts } from './environment.js';
import { familyFragment } from './family.js';
import { renderInstructions, type InstructionFile } from './instructions.js';
import { SANDBOX_GUIDE, toolsGuide } from './tools-guide.js';

export interface PromptParts {
  mode: AgentMode;
  /** The session's model id: picks the family notes. */
  model: string;
  /** The server's built-in tools (after --allowed-tools), not the tools offered in one request. */
  builtins: readonly { id: string; effect: string }[];
  env: EnvFacts;
  instructions: readonly InstructionFile[];
}

/** The system prompt, and how many characters of project instructions it carries (the rest of the budget is the context messages'). */
export function buildSystemPrompt(p: PromptParts): { text: string; instructionChars: number } {
  const guidance =
    p.mode === 'plan'
      ? [PLAN_INTRO, PLAN_WORKING, toolsGuide('plan', p.builtins), PLAN_FINISH]
      : [CODE_INTRO, CODE_WORKING, toolsGuide('code', p.builtins), SANDBOX_GUIDE, CODE_GIT, CODE_FINISH];
  const instructions = renderInstructions(p.instructions);
  const parts = [...guidance, familyFragment(p.model), renderEnvironment(p.env), instructions.text].filter((s) => s.length > 0);
  return { text: parts.join('\n\n'), instructionChars: instructions.used };
}

/**
 * What a session keeps of its system prompt between calls: the environment facts (gathered at its
 * first model call), and the text built for its current mode and model. A person switching either
 * rebuilds the text (the provider's cache is cold then anyway); nothing else does.
 */
export interface PromptMemo {
  env?: Promise<EnvFacts>;
  key?: string;
  text?: string;
  /** Characters of project instructions in `text`. */
  instructionChars?: number;
}
