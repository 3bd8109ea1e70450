// Hosted models: runSync and the PNGs it points at,
// against the ServerlessService class directly.
import { inflateSync } from "node:zlib";
import { IMAGE_MODELS, MAX_PIXELS_PER_SIDE, ServerlessService } from "../../../../../src/emulator/serverless/service";

const BASE = "http://127.0.0.1:4321";

function service(base = BASE) {
  let n = 0;
  return new ServerlessService({
    clock: { now: () => 0 },
    timings: { startingMs: 1, drainMs: 1 },
    random: () => (n++ % 10) / 10,
    imageBaseUrl: () => base,
  });
}

const imageBody = (input: Record<string, unknown>) => ({ input });
const valid = { prompt: "a red fox in snow", width: 512, height: 512 };

// An independent CRC-32 (table-driven, the PNG spec's own sample code), so the check does not
// lean on the zlib.crc32 the encoder uses.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Split a PNG into chunks, checking the signature and every chunk's CRC on the way. */
function readPng(png: Buffer) {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: { type: string; data: Buffer }[] = [];
  let at = 8;
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    expect(png.readUInt32BE(at + 8 + len)).toBe(crc(png.subarray(at + 4, at + 8 + len)));
    chunks.push({ type, data });
    at += 12 + len;
  }
  expect(at).toBe(png.length);
  return chunks;
}

async function run(svc: ServerlessService, input: Record<string, unknown>, model = "sdxl-turbo") {
  const r = (await svc.runSync(model, imageBody(input))) as { status: number; body: any };
  expect(r.status).toBe(200);
  const url = new URL(r.body.output.image_url);
  const png = svc.image(url.pathname);
  expect(png).toBeInstanceOf(Buffer);
  return { r, url, png: png! };
}

describe("runSync", () => {
  test.each(IMAGE_MODELS)("%s answers COMPLETED with an image_url under the image base", async (model) => {
    const svc = service();
    const r = (await svc.runSync(model, imageBody(valid))) as { status: number; body: any };
    expect(r).toEqual({
      status: 200,
      body: {
        id: expect.stringMatching(/^sync-1-[0-9a-z]{8}$/),
        status: "COMPLETED",
        output: { image_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:4321\/images\/[0-9a-f]{32}-64x64\.png$/) },
        // A finished job says how long it queued and ran, in integer ms.
        delayTime: 0,
        executionTime: 0,
      },
    });
  });

  test("each call gets its own id", async () => {
    const svc = service();
    const a = (await svc.runSync("sdxl-turbo", imageBody(valid))) as any;
    const b = (await svc.runSync("sdxl-turbo", imageBody(valid))) as any;
    expect(a.body.id).not.toBe(b.body.id);
  });

  test("a trailing slash on the image base does not double up", async () => {
    const r = (await service(`${BASE}/`).runSync("sdxl-turbo", imageBody(valid))) as any;
    expect(r.body.output.image_url.startsWith(`${BASE}/images/`)).toBe(true);
  });

  test("an unknown model id is 404 with a problem body naming the models there are", async () => {
    const r = (await service().runSync("gpt-9", imageBody(valid))) as any;
    expect(r).toEqual({
      status: 404,
      body: { title: "Not Found", status: 404, detail: expect.stringContaining('"gpt-9"') },
      headers: { "content-type": "application/problem+json" },
    });
    expect(r.body.detail).toContain("sdxl-turbo");
  });

  test.each([
    ["null", null],
    ["an array", [valid]],
    ["a string that is not JSON", "{oops"],
    ["a number", 5],
  ])("a body that is %s is 400", async (_label, body) => {
    const r = (await service().runSync("sdxl-turbo", body)) as any;
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ title: "Bad Request", status: 400, detail: expect.any(String) });
    expect(r.headers).toEqual({ "content-type": "application/problem+json" });
  });

  test("a body given as JSON text is parsed", async () => {
    const r = (await service().runSync("sdxl-turbo", JSON.stringify(imageBody(valid)))) as any;
    expect(r.status).toBe(200);
  });

  test.each([
    ["no input", {}, "$: missing property 'input'"],
    ["input not an object", { input: "draw" }, "$.input: must be an object"],
    ["an unknown top-level property (webhook, policy and s3Config are the job envelope's)", { input: valid, extra: "x" }, "$: additional properties 'extra' not allowed"],
    ["no prompt", { input: { width: 8, height: 8 } }, "$.input: missing property 'prompt'"],
    ["a non-string prompt", { input: { ...valid, prompt: 7 } }, "$.input.prompt: must be a string"],
    ["an empty prompt", { input: { ...valid, prompt: "" } }, "$.input.prompt: must not be empty"],
    ["a fractional height", { input: { ...valid, height: 8.5 } }, "$.input.height: must be an integer"],
    ["a string width", { input: { ...valid, width: "512" } }, "$.input.width: must be an integer"],
    ["width 0", { input: { ...valid, width: 0 } }, "$.input.width: must be between 1 and 4096, got 0"],
    ["height above 4096", { input: { ...valid, height: 4097 } }, "$.input.height: must be between 1 and 4096, got 4097"],
  ])("%s is 422 and the errors name it", async (_label, body, expected) => {
    const r = (await service().runSync("sdxl-turbo", body)) as any;
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      title: "Unprocessable Entity",
      status: 422,
      detail: expect.stringContaining(expected),
      errors: [expected],
    });
    expect(r.headers).toEqual({ "content-type": "application/problem+json" });
  });

  test("every contract failure of one body is listed", async () => {
    const r = (await service().runSync("sdxl-turbo", { input: { prompt: 1, width: -1 }, x: 1 })) as any;
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([
      "$: additional properties 'x' not allowed",
      "$.input.prompt: must be a string",
      "$.input.width: must be between 1 and 4096, got -1",
    ]);
  });
});

describe("the image behind output.image_url", () => {
  test("is a valid PNG: signature, IHDR first with the size, IDAT that inflates to the pixels, IEND last, every CRC right", async () => {
    const { png } = await run(service(), { prompt: "p", width: 32, height: 48 });
    const chunks = readPng(png);
    expect(chunks.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    const ihdr = chunks[0].data;
    expect(ihdr.length).toBe(13);
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)]).toEqual([32, 48]);
    expect([...ihdr.subarray(8)]).toEqual([8, 2, 0, 0, 0]);
    const raw = inflateSync(chunks[1].data);
    expect(raw.length).toBe(48 * (1 + 32 * 3));
    for (let y = 0; y < 48; y++) expect(raw[y * (1 + 32 * 3)]).toBe(0);
    expect(chunks[2].data.length).toBe(0);
  });

  test(`a large request is scaled down, aspect kept, to fit ${MAX_PIXELS_PER_SIDE} pixels a side`, async () => {
    const { png, url } = await run(service(), { prompt: "wide", width: 1024, height: 512 });
    const ihdr = readPng(png)[0].data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)]).toEqual([64, 32]);
    expect(url.pathname).toMatch(/-64x32\.png$/);
  });

  test("a very thin request keeps at least one pixel on the short side", async () => {
    const { png } = await run(service(), { prompt: "line", width: 4096, height: 1 });
    const ihdr = readPng(png)[0].data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)]).toEqual([64, 1]);
  });

  test("pixels are deterministic from model and prompt, and differ between prompts", async () => {
    const a1 = await run(service(), { prompt: "same", width: 16, height: 16 });
    const a2 = await run(service(), { prompt: "same", width: 16, height: 16 });
    const b = await run(service(), { prompt: "other", width: 16, height: 16 });
    const c = await run(service(), { prompt: "same", width: 16, height: 16 }, "flux-schnell");
    expect(a1.png.equals(a2.png)).toBe(true);
    const pixels = (p: Buffer) => inflateSync(readPng(p)[1].data);
    expect(pixels(a1.png).equals(pixels(b.png))).toBe(false);
    expect(pixels(a1.png).equals(pixels(c.png))).toBe(false);
  });

  test("a URL still resolves on another instance (images are drawn from the URL, not stored)", async () => {
    const { url, png } = await run(service(), valid);
    expect(service().image(url.pathname)?.equals(png)).toBe(true);
  });

  test.each([
    "/images/nothing.png",
    "/images/0123456789abcdef0123456789abcdef-65x10.png",
    "/images/0123456789abcdef0123456789abcdef-0x10.png",
    "/images/0123456789ABCDEF0123456789ABCDEF-10x10.png",
    "/images/../etc/passwd",
    "",
  ])("%p is no image", (path) => {
    expect(service().image(path)).toBeUndefined();
  });
});
