// A client report printed to PDF in Electron: a hidden window with scripts off, every request but the
// page itself refused, printed at the page size asked for, and closed whatever happens.
import { describe, expect, it, vi } from 'vitest';

const MOCKED = '(Electron mocked: the runtime cannot run here)';

type RequestHandler = (details: { url: string }, callback: (response: { cancel: boolean }) => void) => void;
const state = vi.hoisted(() => ({
  windows: [] as { options: unknown; loaded: string | null; printed: unknown; destroyed: boolean }[],
  handler: null as RequestHandler | null,
  failPrint: false,
}));

vi.mock('electron', () => {
  class BrowserWindow {
    record: { options: unknown; loaded: string | null; printed: unknown; destroyed: boolean };
    webContents: { printToPDF(options: unknown): Promise<Buffer> };
    constructor(options: unknown) {
      this.record = { options, loaded: null, printed: null, destroyed: false };
      state.windows.push(this.record);
      this.webContents = {
        printToPDF: async (printOptions: unknown) => {
          if (state.failPrint) throw new Error('printing failed');
          this.record.printed = printOptions;
          return Buffer.from('%PDF-1.7 fake');
        },
      };
    }
    async loadURL(url: string) {
      this.record.loaded = url;
    }
    destroy() {
      this.record.destroyed = true;
    }
  }
  const session = {
    fromPartition: () => ({ webRequest: { onBeforeRequest: (handler: RequestHandler) => (state.handler = handler) } }),
  };
  return { BrowserWindow, session, default: { BrowserWindow, session } };
});

const { printHtmlToPdf } = await import('../../src/main/hosts/electron/print-pdf');

describe(`printing a client report to PDF ${MOCKED}`, () => {
  it('loads the report as a data: page in a hidden window without JavaScript, and prints it at the asked page size', async () => {
    const pdf = await printHtmlToPdf('<!doctype html><p>Report</p>', { pageSize: 'Letter' });
    expect(Buffer.from(pdf).toString()).toBe('%PDF-1.7 fake');
    const window = state.windows.at(-1);
    expect(window?.options).toMatchObject({ show: false, webPreferences: { javascript: false, sandbox: true, contextIsolation: true, nodeIntegration: false } });
    expect(window?.loaded).toMatch(/^data:text\/html;charset=utf-8;base64,/);
    expect(Buffer.from(String(window?.loaded).split(',')[1] ?? '', 'base64').toString()).toBe('<!doctype html><p>Report</p>');
    expect(window?.printed).toMatchObject({ pageSize: 'Letter', printBackground: true });
    expect(window?.destroyed).toBe(true);
  });

  it('refuses every request but the page itself', () => {
    const answers: boolean[] = [];
    for (const url of ['https://tracker.example/x.png', 'http://127.0.0.1/x.css', 'file:///etc/passwd', 'data:text/html,hi']) {
      state.handler?.({ url }, (response) => answers.push(response.cancel));
    }
    expect(answers).toEqual([true, true, true, false]);
  });

  it('closes the window when printing fails', async () => {
    state.failPrint = true;
    await expect(printHtmlToPdf('<p>x</p>', { pageSize: 'A4' })).rejects.toThrow('printing failed');
    expect(state.windows.at(-1)?.destroyed).toBe(true);
    state.failPrint = false;
  });
});
