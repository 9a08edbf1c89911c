// One place for every way a command sets a variable (assignments, read, printf -v, for, ...):
// each is judged like `NAME=value` (decideAssignment), a name only known at run time asks,
// and a variable declared integer (`declare -i`) that is given a run-time value anywhere in
// the command asks, because bash evaluates that value as arithmetic.
import { isLiteralArith, nameProblem } from './parse/arith-contexts.js';
import { decideAssignment, isRiskyVar, printable } from './classify-decide.js';
import type { Item } from './classify-decide.js';
import { baseVar } from './var-setters.js';
import type { Target } from './var-setters.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class VarTracker {
  private readonly ints = new Set<string>();
  /** Variables given a value that is not a literal number, with what set them. */
  private readonly dynamic = new Map<string, string>();

  constructor(private readonly push: (item: Item) => void) {}

  /** A variable set (or removed) by `how` (e.g. `read -r PATH`). */
  set(t: Target, how: string): void {
    const label = printable(how);
    const ask = (risk: 'medium' | 'high', reason: string): void => this.push({ action: 'ask', risk, readOnly: false, label, reason });
    if (t.name === undefined && t.named) return ask('medium', `\`${label}\` uses a variable whose name is only known at run time (${printable(t.text)}), which bash may evaluate as code.`);
    if (t.name === undefined) return ask('high', `\`${label}\` sets a variable whose name is only known at run time (${printable(t.text)}), which could be PATH or run code.`);
    const why = nameProblem(t.name);
    if (why) ask('medium', `\`${label}\` ${why}.`);
    if (t.named) return;
    const name = baseVar(t.name);
    if (!IDENT.test(name)) return;
    if (t.unset) {
      if (isRiskyVar(name)) ask('high', `Removes ${name}, which can change what later commands run.`);
      return;
    }
    const item = decideAssignment(name, t.value, t.env ? 'env' : 'standalone');
    if (item) this.push({ ...item, label });
    const literal = t.value !== undefined ? isLiteralArith(t.value) : t.valueText !== undefined && isLiteralArith(t.valueText.replace(/^"(.*)"$/s, '$1'));
    if (!literal) this.dynamic.set(name, label);
  }

  /** `declare -i NAME`: later values of NAME are evaluated as arithmetic. */
  integer(name: string): void {
    this.ints.add(baseVar(name));
  }

  /** Integer variables that get a run-time value somewhere in the command (order does not matter: functions and loops reorder). */
  finish(): void {
    for (const name of this.ints) {
      const how = this.dynamic.get(name);
      if (how !== undefined) {
        this.push({ action: 'ask', risk: 'medium', readOnly: false, label: how, reason: `\`${how}\` gives integer variable ${name} a value bash evaluates as arithmetic, which runs code if it holds \`a[$(cmd)]\`.` });
      }
    }
  }
}
