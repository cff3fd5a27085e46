// Remembers the window's size and position in a small JSON file and puts it back on a visible display.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

export const WINDOW_STATE_FILE = 'window-state.json';
export const DEFAULT_SIZE = { width: 1280, height: 800 } as const;
export const MIN_SIZE = { width: 900, height: 560 } as const;

const Rectangle = z.object({
  x: z.int(),
  y: z.int(),
  width: z.int().positive(),
  height: z.int().positive(),
});
export type Rectangle = z.infer<typeof Rectangle>;

const WindowState = Rectangle.extend({ maximized: z.boolean() });
export type WindowState = z.infer<typeof WindowState>;

/** The saved state, or null when there is none or it is unreadable (a bad file only costs the position). */
export function readWindowState(file: string): WindowState | null {
  try {
    const parsed = WindowState.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Written to a temporary file and renamed, so a crash mid-write never leaves half a file. */
export function writeWindowState(file: string, state: WindowState): void {
  // In the data folder, as the user's own files are: the owner's alone.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/**
 * Where the window opens: the saved bounds moved and shrunk into the display they overlap most
 * (so a display that was unplugged, or a resolution that shrank, never leaves the window off screen);
 * without a saved state, the default size centred on the primary display.
 * `workAreas[0]` is the primary display's work area.
 */
export function placeWindow(
  saved: WindowState | null,
  workAreas: readonly Rectangle[],
): WindowState {
  const primary = workAreas[0] ?? { x: 0, y: 0, ...DEFAULT_SIZE };
  if (!saved) {
    const width = Math.min(DEFAULT_SIZE.width, primary.width);
    const height = Math.min(DEFAULT_SIZE.height, primary.height);
    return {
      x: primary.x + Math.round((primary.width - width) / 2),
      y: primary.y + Math.round((primary.height - height) / 2),
      width,
      height,
      maximized: false,
    };
  }
  const area = mostOverlapping(saved, workAreas) ?? primary;
  const width = clamp(saved.width, Math.min(MIN_SIZE.width, area.width), area.width);
  const height = clamp(saved.height, Math.min(MIN_SIZE.height, area.height), area.height);
  return {
    x: clamp(saved.x, area.x, area.x + area.width - width),
    y: clamp(saved.y, area.y, area.y + area.height - height),
    width,
    height,
    maximized: saved.maximized,
  };
}

function mostOverlapping(bounds: Rectangle, areas: readonly Rectangle[]): Rectangle | null {
  let best: Rectangle | null = null;
  let bestOverlap = 0;
  for (const area of areas) {
    const overlap = overlapArea(bounds, area);
    if (overlap > bestOverlap) {
      best = area;
      bestOverlap = overlap;
    }
  }
  return best;
}

function overlapArea(a: Rectangle, b: Rectangle): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width > 0 && height > 0 ? width * height : 0;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
