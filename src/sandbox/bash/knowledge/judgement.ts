import type { Risk } from '../../../protocol/index.js';

/** Built-in knowledge's verdict on one simple command (its own file so knowledge files can share it without a cycle). */
export interface Judgement {
  readonly readOnly: boolean;
  readonly risk: Risk;
  /** Finishes the sentence "`cmd` ...". */
  readonly phrase: string;
  /** Its arguments may themselves be a command (`ssh host git push`), so rules scan them too. */
  readonly argsMayRun?: boolean;
  /** What it will run cannot be known before it runs (`git $(echo push)`). */
  readonly hidden?: boolean;
}
