// The PNG a hosted image model answers with is a file any viewer opens: the signature, an IHDR of
// 8-bit truecolour, the pixels deflated one scanline at a time, and a CRC-32 on every chunk.
import { crc32, inflateSync } from "node:zlib";
import { encodePng } from "../../../../../src/emulator/serverless/hosted-models/png";

interface Chunk {
  type: string;
  data: Buffer;
  crc: number;
}

function chunks(png: Buffer): Chunk[] {
  const out: Chunk[] = [];
  for (let o = 8; o < png.length; ) {
    const length = png.readUInt32BE(o);
    out.push({ type: png.toString("latin1", o + 4, o + 8), data: png.subarray(o + 8, o + 8 + length), crc: png.readUInt32BE(o + 8 + length) });
    o += 12 + length;
  }
  return out;
}

const png = encodePng(3, 2, (x, y) => [x * 10, y * 20, 255]);

test("the PNG signature, then IHDR, IDAT and IEND", () => {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(chunks(png).map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
});

test("IHDR: the size, 8-bit truecolour, deflate, filter 0, no interlace", () => {
  const ihdr = chunks(png)[0].data;
  expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ...ihdr.subarray(8)]).toEqual([3, 2, 8, 2, 0, 0, 0]);
});

test("each chunk's CRC covers its type and data", () => {
  for (const c of chunks(png)) expect(c.crc).toBe(crc32(c.data, crc32(Buffer.from(c.type, "latin1"))) >>> 0);
});

test("the pixels, each scanline with filter None", () => {
  const raw = inflateSync(chunks(png)[1].data);
  expect([...raw]).toEqual([0, 0, 0, 255, 10, 0, 255, 20, 0, 255, 0, 0, 20, 255, 10, 20, 255, 20, 20, 255]);
});

test("the same pixels make the same bytes", () => {
  expect(encodePng(3, 2, (x, y) => [x * 10, y * 20, 255]).equals(png)).toBe(true);
});
