// The browser host's saveFile: the core writes the export into a private temporary folder, then the
// renderer fetches it once from GET /api/download/<id> (behind the same token and Origin checks).
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { SaveFile } from '#core/index';

export const DOWNLOAD_PATH = '/api/download';

/** The media type of a finished file, by its extension. */
function contentTypeOf(fileName: string): string {
  if (fileName.endsWith('.xlsx'))
    return 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  if (fileName.endsWith('.html')) return 'text/html; charset=utf-8';
  if (fileName.endsWith('.pdf')) return 'application/pdf';
  return 'text/csv; charset=utf-8';
}

export function createDownloads(): {
  saveFile: SaveFile;
  serve(id: string, res: ServerResponse): Promise<boolean>;
  close(): Promise<void>;
} {
  const ready = new Map<string, { path: string; dir: string; fileName: string }>();
  const dirs = new Set<string>();
  return {
    async saveFile({ suggestedName }) {
      const dir = await mkdtemp(join(tmpdir(), 'splitbook-export-'));
      dirs.add(dir);
      const path = join(dir, suggestedName);
      return {
        path,
        async saved({ fileName }) {
          const id = randomBytes(18).toString('base64url');
          ready.set(id, { path, dir, fileName });
          return {
            location: `your browser's downloads (${fileName})`,
            downloadUrl: `${DOWNLOAD_PATH}/${id}`,
          };
        },
        async discard() {
          dirs.delete(dir);
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
    /** Streams the file once, then deletes it; false when the id is unknown or already used. */
    async serve(id, res) {
      const entry = ready.get(id);
      if (!entry) return false;
      ready.delete(id);
      const { size } = await stat(entry.path);
      res.writeHead(200, {
        'content-type': contentTypeOf(entry.fileName),
        'content-length': size,
        'content-disposition': `attachment; filename="${entry.fileName.replace(/[^\w.-]/g, '_')}"`,
        'cache-control': 'no-store',
      });
      const cleanup = () => {
        dirs.delete(entry.dir);
        void rm(entry.dir, { recursive: true, force: true });
      };
      createReadStream(entry.path)
        .on('error', () => res.destroy())
        .pipe(res)
        .on('close', cleanup);
      return true;
    },
    async close() {
      await Promise.all([...dirs].map((dir) => rm(dir, { recursive: true, force: true })));
      dirs.clear();
      ready.clear();
    },
  };
}
