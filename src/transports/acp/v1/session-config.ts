import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import { AGENT_MODES, APPROVAL_PRESETS, REASONING_EFFORTS, type SessionHandle, type Sessions } from '../../../core/index.js';

/** Namespace of every ferret-only `_meta` key (ACP extensibility: namespaced, ignorable). */
export const META_NS = 'ferret.dev';

const MODE_INFO: Record<(typeof AGENT_MODES)[number], { name: string; description: string }> = {
  code: { name: 'Code', description: 'Reads, edits files and runs commands' },
  plan: { name: 'Plan', description: 'Reads only and proposes a plan; makes no changes' },
};

const APPROVAL_INFO: Record<(typeof APPROVAL_PRESETS)[number], { name: string; description: string }> = {
  suggest: { name: 'Suggest', description: 'Ask before every write and every command not known to be read-only' },
  auto: { name: 'Auto', description: 'Workspace writes and safe commands run; the rest asks' },
  'full-auto': { name: 'Full auto', description: 'Never ask (deny rules and the sandbox still apply)' },
};

const REASONING_INFO: Record<(typeof REASONING_EFFORTS)[number], { name: string; description: string }> = {
  minimal: { name: 'Minimal', description: 'Answer with as little reasoning as the model allows' },
  low: { name: 'Low', description: 'Think briefly before answering' },
  medium: { name: 'Medium', description: 'The usual balance of thought and speed' },
  high: { name: 'High', description: 'Think longest: harder problems, slower and costlier replies' },
};

/** Legacy mode state; sent beside configOptions and kept in sync with them. */
export function modeState(s: SessionHandle): SessionModeState {
  return {
    currentModeId: s.state.mode,
    availableModes: AGENT_MODES.map((id) => ({ id, ...MODE_INFO[id] })),
  };
}

/**
 * The complete config option list: mode, model (v1's only model picker), the reasoning effort
 * (category thought_level, as codex-acp offers it) and the approval preset as a custom
 * `_`-category select. Order is display priority.
 */
export function configOptions(s: SessionHandle, manager: Sessions): SessionConfigOption[] {
  const models = manager.models(s.state.model);
  return [
    {
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: s.state.mode,
      options: AGENT_MODES.map((value) => ({ value, ...MODE_INFO[value] })),
    },
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: s.state.model,
      options: models.map((m) => ({ value: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
    },
    {
      id: 'reasoning',
      name: 'Reasoning',
      description: 'How hard a reasoning model thinks before it answers (models that take no effort ignore it)',
      category: 'thought_level',
      type: 'select',
      currentValue: s.state.reasoning,
      options: REASONING_EFFORTS.map((value) => ({ value, ...REASONING_INFO[value] })),
    },
    {
      id: 'approval',
      name: 'Approval',
      category: '_ferret_approval',
      type: 'select',
      currentValue: s.state.approval,
      options: APPROVAL_PRESETS.map((value) => ({ value, ...APPROVAL_INFO[value] })),
    },
  ];
}

/** Ferret's extras for a session, under `_meta["ferret.dev"]` of session responses. */
export function sessionMeta(s: SessionHandle, bridgeAttached: boolean): Record<string, unknown> {
  const st = s.state;
  return {
    [META_NS]: {
      sandbox: st.sandbox,
      approval: st.approval,
      model: st.model,
      mode: st.mode,
      reasoning: st.reasoning,
      costUsd: st.costUsd,
      usage: st.usage,
      status: s.status,
      bridge: { attached: bridgeAttached },
    },
  };
}

/** The whole session-setup answer (new/load/resume): modes, options and extras. */
export function sessionSetup(s: SessionHandle, manager: Sessions) {
  return { modes: modeState(s), configOptions: configOptions(s, manager), _meta: sessionMeta(s, manager.bridgeStatus().attached) };
}
