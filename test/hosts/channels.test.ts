// The zod-free name lists the preload is built from say exactly what the contract says.
import { describe, expect, it } from 'vitest';
import { CHANNELS, contract, events } from '#shared/contract/index';
import { EVENT_NAMES, METHOD_NAMES, MENU_COMMANDS } from '#shared/channels';

describe('channels.ts', () => {
  it('lists every contract method, and nothing else', () => {
    const listed = Object.entries(METHOD_NAMES).flatMap(([ns, names]) =>
      names.map((name) => `${ns}.${name}`),
    );
    expect(listed.sort()).toEqual([...CHANNELS].sort());
    expect(Object.keys(METHOD_NAMES).sort()).toEqual(Object.keys(contract).sort());
  });

  it('lists every contract event, and nothing else', () => {
    expect([...EVENT_NAMES].sort()).toEqual(Object.keys(events).sort());
  });

  it("names the menu commands the contract's menu.command event accepts", () => {
    for (const command of MENU_COMMANDS)
      expect(events['menu.command'].safeParse({ command }).success).toBe(true);
    expect(events['menu.command'].safeParse({ command: 'reload' }).success).toBe(false);
  });
});
