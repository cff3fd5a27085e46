// Remembered window bounds: read back safely, written atomically, and always placed on a visible display.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_SIZE,
  placeWindow,
  readWindowState,
  writeWindowState,
} from '../../src/main/hosts/electron/window-state';

const LAPTOP = { x: 0, y: 0, width: 1440, height: 875 };
const RIGHT_MONITOR = { x: 1440, y: -200, width: 2560, height: 1415 };

describe('window state file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'splitbook-state-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips, creating the folder, and leaves no temporary file behind', () => {
    const file = join(dir, 'nested', 'window-state.json');
    writeWindowState(file, { x: 10, y: 20, width: 1000, height: 700, maximized: false });
    expect(readWindowState(file)).toEqual({
      x: 10,
      y: 20,
      width: 1000,
      height: 700,
      maximized: false,
    });
    expect(readdirSync(join(dir, 'nested'))).toEqual(['window-state.json']);
  });

  it.each([
    ['missing', null],
    ['not JSON', '{"x": 1,'],
    [
      'the wrong shape',
      JSON.stringify({ x: 'left', y: 0, width: 10, height: 10, maximized: false }),
    ],
    ['a zero size', JSON.stringify({ x: 0, y: 0, width: 0, height: 10, maximized: false })],
  ])('reads a %s file as "no saved state"', (_what, content) => {
    const file = join(dir, 'window-state.json');
    if (content !== null) writeFileSync(file, content);
    expect(existsSync(file)).toBe(content !== null);
    expect(readWindowState(file)).toBeNull();
  });
});

describe('placeWindow', () => {
  it('centres the default size on the primary display the first time', () => {
    expect(placeWindow(null, [LAPTOP, RIGHT_MONITOR])).toEqual({
      x: (LAPTOP.width - DEFAULT_SIZE.width) / 2,
      y: Math.round((LAPTOP.height - DEFAULT_SIZE.height) / 2),
      ...DEFAULT_SIZE,
      maximized: false,
    });
  });

  it('keeps bounds that fit on the display they are on, including a second monitor above the origin', () => {
    const saved = { x: 1600, y: -100, width: 1800, height: 1000, maximized: true };
    expect(placeWindow(saved, [LAPTOP, RIGHT_MONITOR])).toEqual(saved);
  });

  it('moves a window whose monitor was unplugged onto the primary display and shrinks it to fit', () => {
    const saved = { x: 1600, y: -100, width: 1800, height: 1000, maximized: false };
    expect(placeWindow(saved, [LAPTOP])).toEqual({
      x: 0,
      y: 0,
      width: 1440,
      height: 875,
      maximized: false,
    });
  });

  it('pulls a window hanging off an edge fully back onto the display it mostly covers', () => {
    const saved = { x: 1000, y: 600, width: 1000, height: 700, maximized: false };
    expect(placeWindow(saved, [LAPTOP])).toEqual({
      x: 440,
      y: 175,
      width: 1000,
      height: 700,
      maximized: false,
    });
  });

  it('raises a too-small saved size to the minimum', () => {
    expect(
      placeWindow({ x: 0, y: 0, width: 100, height: 50, maximized: false }, [LAPTOP]),
    ).toMatchObject({ width: 900, height: 560 });
  });
});
