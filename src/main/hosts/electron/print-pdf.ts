// Client reports as PDF: the report's own HTML in a hidden window with scripts off and every request but
// the page itself refused, printed by Chromium (webContents.printToPDF), then closed.
import { BrowserWindow, session } from 'electron';

const PARTITION = 'splitbook-print';

export async function printHtmlToPdf(html: string, options: { pageSize: 'A4' | 'Letter' }): Promise<Uint8Array> {
  const printing = session.fromPartition(PARTITION, { cache: false });
  // The report loads nothing by design; this makes sure of it whatever a text in it says.
  printing.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !details.url.startsWith('data:') }));
  const window = new BrowserWindow({
    show: false,
    webPreferences: { javascript: false, sandbox: true, contextIsolation: true, nodeIntegration: false, session: printing },
  });
  try {
    await window.loadURL(`data:text/html;charset=utf-8;base64,${Buffer.from(html, 'utf8').toString('base64')}`);
    const pdf = await window.webContents.printToPDF({ pageSize: options.pageSize, printBackground: true });
    return new Uint8Array(pdf);
  } finally {
    window.destroy();
  }
}
