// Reading a file's range in slabs, handed out part by part: each part exactly its bytes, whatever the slab size, and the
// range's CRC-32.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { SlabReader } from '../../src/store/line-file.js';
import { removeTemporaryDirectories, temporaryDirectory } from '../support/namespace-fixtures.js';

after(removeTemporaryDirectories);

describe('SlabReader', () => {
  it('hands out each part of a range in order, parts larger than a slab, across slab ends and at them included', async () => {
    const sizes = [3, 10, 1, 0, 25, 7, 40, 16, 2];
    const parts = sizes.map((size) => randomBytes(size));
    const range = Buffer.concat(parts);
    const path = join(await temporaryDirectory(), 'range');
    // Bytes before and after the range, which no part may include.
    await writeFile(path, Buffer.concat([Buffer.from('head!'), range, Buffer.from('tail')]));
    const file = await open(path, 'r');
    try {
      for (const slabBytes of [1, 16, 64, 1 << 20]) {
        const reader = await SlabReader.read(file, 5, range.length, slabBytes);
        assert.equal(reader.crc, crc32(range));
        for (const part of parts) assert.deepEqual(reader.take(part.length), part);
        assert.throws(() => reader.take(1), /ended early/);
      }
    } finally {
      await file.close();
    }
  });
});
