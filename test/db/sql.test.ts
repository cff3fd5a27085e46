// Typed SQL (db/sql.ts): a statement declared once binds its named parameters from one object, returns
// its rows, and is prepared once per connection; a statement without parameters takes none.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { read, write } from '#core/db/sql';

describe('typed statements', () => {
  it('bind named parameters, return typed rows and run writes', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (store_id TEXT, id TEXT, title TEXT, n INTEGER)');
    const insert = write<{ storeId: string; id: string; title: string; n: number }>(
      'INSERT INTO t VALUES (@storeId, @id, @title, @n)',
    );
    const title = read<{ title: string }, { storeId: string; id: string }>(
      'SELECT title FROM t WHERE store_id = @storeId AND id = @id',
    );
    const count = read<{ n: number }>('SELECT count(*) AS n FROM t');
    expect(insert.run(db, { storeId: 's', id: '1', title: 'One', n: 1 }).changes).toBe(1);
    insert.run(db, { storeId: 's', id: '2', title: 'Two', n: 2 });
    expect(title.get(db, { storeId: 's', id: '2' })).toEqual({ title: 'Two' });
    expect(title.get(db, { storeId: 's', id: '3' })).toBeUndefined();
    expect(count.get(db)?.n).toBe(2);
    expect([...read<{ id: string }>('SELECT id FROM t ORDER BY id').iterate(db)].map((r) => r.id)).toEqual(['1', '2']);
    // Prepared once per connection: the same statement object answers again.
    expect(title.all(db, { storeId: 's', id: '1' })).toEqual([{ title: 'One' }]);
    db.close();
  });
});
