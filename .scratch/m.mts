import * as Y from 'yjs';
function build(n: number) {
  const d = new Y.Doc();
  for (let i = 0; i < n; i++) {
    const id = crypto.randomUUID();
    d.transact(() => {
      d.getText('note:' + id).insert(0, 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(4));
      const m = d.getMap('test:' + id);
      m.set('owner/alice', { value: 'alice', by: 'alice', at: new Date().toISOString() });
      m.set('plan/alice', { value: 28, by: 'alice', at: new Date().toISOString() });
      m.set('noteBy/alice', { at: new Date().toISOString() });
    });
  }
  return d;
}
const before = process.memoryUsage().heapUsed;
const docs = [];
for (let k = 0; k < 10; k++) docs.push(build(500));
globalThis.gc?.();
const after = process.memoryUsage().heapUsed;
console.log('heap per doc MiB', (after - before) / 10 / 2 ** 20);
const u = Y.encodeStateAsUpdate(docs[0]!);
console.log('encoded bytes', u.length);
let t = performance.now();
for (let k = 0; k < 20; k++) { const c = new Y.Doc(); Y.applyUpdate(c, Y.encodeStateAsUpdate(docs[0]!)); }
console.log('copy ms', (performance.now() - t) / 20);
t = performance.now();
for (let k = 0; k < 20; k++) { Y.encodeStateAsUpdate(docs[0]!); }
console.log('encode ms', (performance.now() - t) / 20);
