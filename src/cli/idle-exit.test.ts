import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TurnActivity } from '../core/index.js';
import { TURN_CEILING_FACTOR, watchIdle, type IdleExit } from './idle-exit.js';

// The rules of --idle-exit on a fake clock: who keeps the server, and what it does with turns
// nobody can see when it goes.

const IDLE = 1000;
let t = 0;
let open = 0;
let turns: TurnActivity = 'none';
let exits: IdleExit[] = [];
let unwatch: () => void = () => undefined;

beforeEach(() => {
  vi.useFakeTimers();
  t = 0;
  open = 0;
  turns = 'none';
  exits = [];
  unwatch = watchIdle({ openRequests: () => open, turns: () => turns, stdioOpen: () => false }, IDLE, (e) => exits.push(e), () => t);
});
afterEach(() => {
  unwatch();
  vi.useRealTimers();
});

/** Moves the clock on by `ms` in ticks, as the interval sees it. */
function pass(ms: number): void {
  for (let done = 0; done < ms; done += 250) {
    t += 250;
    vi.advanceTimersByTime(250);
  }
}

describe('watchIdle', () => {
  it('exits after the period with no client and no turn, stopping nothing', () => {
    pass(IDLE - 250);
    expect(exits).toEqual([]);
    pass(250);
    expect(exits).toEqual([{ why: 'idle for 1 s with no client' }]);
  });

  it('a connected client keeps it; the period counts from when the client left', () => {
    open = 1;
    pass(5 * IDLE);
    open = 0;
    pass(IDLE - 250);
    expect(exits).toEqual([]);
    pass(250);
    expect(exits).toHaveLength(1);
  });

  it('a turn waiting on a person does not keep it: after the period with no client the turn is stopped and it exits', () => {
    turns = 'waiting';
    pass(IDLE - 250);
    expect(exits).toEqual([]);
    pass(250);
    expect(exits).toHaveLength(1);
    expect(exits[0]!.why).toContain('waited on a person');
    expect(exits[0]!.stopTurns).toContain('no window was connected for 1 s');
  });

  it('a window back within the period finds its waiting turn; the period starts again when it leaves', () => {
    turns = 'waiting';
    pass(IDLE - 250);
    open = 1; // the reloaded window reconnects
    pass(250);
    open = 0;
    pass(IDLE - 250);
    expect(exits).toEqual([]);
    pass(250);
    expect(exits).toHaveLength(1);
  });

  it('a working turn keeps it, then waits its period once it starts waiting on a person', () => {
    turns = 'working';
    pass(3 * IDLE);
    turns = 'waiting';
    pass(IDLE - 250);
    expect(exits).toEqual([]);
    pass(250);
    expect(exits[0]!.stopTurns).toBeDefined();
  });

  it(`a working turn with no client is stopped after ${TURN_CEILING_FACTOR} periods`, () => {
    turns = 'working';
    pass(TURN_CEILING_FACTOR * IDLE - 250);
    expect(exits).toEqual([]);
    pass(250);
    expect(exits).toHaveLength(1);
    expect(exits[0]!.why).toBe(`a turn worked ${TURN_CEILING_FACTOR} s with no client`);
    expect(exits[0]!.stopTurns).toContain(`ran ${TURN_CEILING_FACTOR} s with no window connected`);
  });

  it('a working turn a client watches has no ceiling', () => {
    turns = 'working';
    open = 1;
    pass(3 * TURN_CEILING_FACTOR * IDLE);
    expect(exits).toEqual([]);
  });
});
