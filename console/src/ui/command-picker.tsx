// The composer's `/` menu: while the message is a bare `/name` being typed, the commands that
// start with it (ferret's own and the team's command files), from GET /session/:id/commands.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { SlashCommandItem } from '../types.js';

/** The session's commands, fetched on open and again whenever `refreshKey` changes (a turn ended: files may have changed). */
export function useCommands(sessionId: string, refreshKey: unknown): SlashCommandItem[] {
  const [commands, setCommands] = useState<SlashCommandItem[]>([]);
  useEffect(() => {
    let live = true;
    api<{ commands: SlashCommandItem[] }>('GET', `/session/${encodeURIComponent(sessionId)}/commands`)
      .then((r) => live && setCommands(r.commands))
      .catch(() => {}); // the menu is a convenience: typed commands work without it
    return () => {
      live = false;
    };
  }, [sessionId, refreshKey]);
  return commands;
}

/** The commands that match what is typed, or none when the text is not a `/name` being typed. */
export function matchingCommands(text: string, commands: readonly SlashCommandItem[]): SlashCommandItem[] {
  const m = /^\/([A-Za-z0-9_:-]*)$/.exec(text);
  if (!m) return [];
  const typed = m[1]!.toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(typed));
}

const SOURCE_LABEL: Record<string, string> = { workspace: 'team', user: 'yours' };

export function CommandPicker({ items, active, choose }: { items: SlashCommandItem[]; active: number; choose: (c: SlashCommandItem) => void }) {
  if (items.length === 0) return null;
  return (
    <ul class="command-picker" role="listbox" id="command-picker" aria-label="Slash commands">
      {items.map((c, i) => (
        <li
          key={c.name}
          id={`command-${i}`}
          role="option"
          aria-selected={i === active}
          class={i === active ? 'active' : undefined}
          // mousedown, not click: the textarea keeps the focus.
          onMouseDown={(e) => {
            e.preventDefault();
            choose(c);
          }}
        >
          <span class="command-name">/{c.name}</span>
          {c.hint ? <span class="command-hint">{c.hint}</span> : null}
          <span class="command-description">{c.description}</span>
          {c.source && SOURCE_LABEL[c.source] ? <span class="command-source">{SOURCE_LABEL[c.source]}</span> : null}
        </li>
      ))}
    </ul>
  );
}
