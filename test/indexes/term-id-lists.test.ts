import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodedLength, encodedLists, encodeIds, forEachId, idCount, renumberedIds } from '../../src/indexes/term-id-lists.js';

const idLists = fc.array(fc.uniqueArray(fc.oneof(fc.nat(300), fc.nat(0xffffffff)), { maxLength: 40 }), { maxLength: 12 });
const ascending = (ids: readonly number[]) => [...ids].sort((left, right) => left - right);

function decoded(bytes: Uint8Array, start: number, end: number): number[] {
  const ids: number[] = [];
  forEachId(bytes, start, end, (id) => ids.push(id));
  return ids;
}

describe('term id lists', () => {
  it('read back every list as written, ascending, in the bytes they were measured to take', () => {
    fc.assert(
      fc.property(idLists, (lists) => {
        const sorted = lists.map(ascending);
        const bytes = new Uint8Array(sorted.reduce((total, ids) => total + encodedLength(ids), 0));
        const ends: number[] = [];
        let offset = 0;
        for (const ids of sorted) ends.push((offset = encodeIds(ids, bytes, offset)));
        assert.equal(offset, bytes.length);
        sorted.forEach((ids, list) => assert.deepEqual(decoded(bytes, ends[list - 1] ?? 0, ends[list] as number), ids));
        assert.equal(idCount(bytes), sorted.flat().length);
        // Counted four bytes at a time where aligned, one at a time around that.
        for (const cut of [1, 2, 3]) {
          if (bytes.length < cut) continue;
          const inner = bytes.subarray(cut, bytes.length - 1);
          assert.equal(idCount(inner), Array.from(inner).filter((byte) => byte < 0x80).length);
        }
      }),
    );
  });

  it('take a byte a term while ids are less than 128 apart', () => {
    const ids = [0, 5, 127, 255, 382];
    assert.equal(encodedLength(ids), 5);
    assert.equal(encodedLength([128]), 2);
    assert.equal(encodedLength([0xffffffff]), 5);
  });

  it('renumber a list, measuring first and writing after, in as many bytes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(2000), { maxLength: 60 }), fc.uniqueArray(fc.nat(2000)), (unsorted, dropped) => {
        const ids = ascending(unsorted);
        // A compaction's renumbering: the ids no list holds any more are dropped, the others numbered densely in order.
        const gone = new Set(dropped.filter((id) => !unsorted.includes(id)));
        const newIdOf = new Int32Array(2001).fill(-1);
        let next = 0;
        for (let id = 0; id <= 2000; id++) if (!gone.has(id)) newIdOf[id] = next++;
        const bytes = new Uint8Array(encodedLength(ids));
        encodeIds(ids, bytes, 0);
        const length = renumberedIds(bytes, 0, bytes.length, newIdOf);
        const target = new Uint8Array(length + 3);
        assert.equal(renumberedIds(bytes, 0, bytes.length, newIdOf, target, 3), length);
        assert.deepEqual(
          decoded(target, 3, 3 + length),
          ids.map((id) => newIdOf[id]),
        );
      }),
    );
  });

  it('encode lists of whole ids in any order (snapshots of formats 2 to 5) as sorted lists at byte offsets', () => {
    const { bytes, offsets } = encodedLists(Uint32Array.from([9, 2, 700, 4, 1, 0]), Uint32Array.from([0, 3, 3, 6]));
    assert.deepEqual(Array.from(offsets), [0, 4, 4, 7]);
    assert.deepEqual(decoded(bytes, 0, 4), [2, 9, 700]);
    assert.deepEqual(decoded(bytes, 4, 4), []);
    assert.deepEqual(decoded(bytes, 4, 7), [0, 1, 4]);
  });
});
