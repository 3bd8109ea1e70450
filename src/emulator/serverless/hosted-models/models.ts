// Hosted models: a fixed catalog of image models answering `runsync`.
//
// An image URL encodes everything needed to draw the image again (a hash of model and
// prompt, and the pixel size), so images are rendered on request and never stored: memory
// stays flat however many calls are made, and a URL survives an emulator restart.
import { createHash } from "node:crypto";
import { checkEnvelope, isObject } from "../jobs/envelope";
import { encodePng } from "./png";

/** The hosted models the emulator serves; both are image models with the same input. */
export const IMAGE_MODELS = ["sdxl-turbo", "flux-schnell"] as const;

/** Requested width and height must be integers in this range. */
export const MIN_SIDE = 1;
export const MAX_SIDE = 4096;
/** Served PNGs are scaled down (aspect kept) to fit in this many pixels per side. */
export const MAX_PIXELS_PER_SIDE = 64;

export interface Problem {
  title: string;
  status: number;
  detail: string;
  errors?: string[];
}

/** Width and height of an image whose request names none. */
export const DEFAULT_SIDE = 512;

export interface ImageRequest {
  modelId: string;
  prompt: string;
  width: number;
  height: number;
}

/** Parse a runsync body: 400 when it is not a JSON object, 422 listing every contract failure. */
export function parseImageRequest(
  modelId: string,
  body: unknown,
): { ok: true; value: ImageRequest } | { ok: false; problem: Problem } {
  if (!isObject(body))
    return {
      ok: false,
      problem: {
        title: "Bad Request",
        status: 400,
        detail: "request body must be a JSON object of the form { input: { prompt, ... } }",
      },
    };
  const errors: string[] = [];
  // The job envelope (webhook, policy, s3Config) is accepted as on an account's endpoint.
  checkEnvelope(body, errors);
  const input = body.input;
  if (isObject(input)) {
    // An image model requires `prompt`; every other input is accepted.
    if (input.prompt === undefined) errors.push("$.input: missing property 'prompt'");
    else if (typeof input.prompt !== "string") errors.push("$.input.prompt: must be a string");
    else if (input.prompt.length === 0) errors.push("$.input.prompt: must not be empty");
    for (const side of ["width", "height"] as const) {
      const v = input[side];
      if (v === undefined) continue;
      if (typeof v !== "number" || !Number.isInteger(v))
        errors.push(`$.input.${side}: must be an integer`);
      else if (v < MIN_SIDE || v > MAX_SIDE)
        errors.push(`$.input.${side}: must be between ${MIN_SIDE} and ${MAX_SIDE}, got ${v}`);
    }
  }
  if (errors.length > 0)
    return {
      ok: false,
      problem: {
        title: "Unprocessable Entity",
        status: 422,
        detail: errors.join("; "),
        errors,
      },
    };
  const i = input as { prompt: string; width?: number; height?: number };
  return {
    ok: true,
    value: { modelId, prompt: i.prompt, width: i.width ?? DEFAULT_SIDE, height: i.height ?? DEFAULT_SIDE },
  };
}

/** The file name (under /images/) of the image a request produces. */
export function imageName(req: ImageRequest): string {
  const scale = Math.min(1, MAX_PIXELS_PER_SIDE / req.width, MAX_PIXELS_PER_SIDE / req.height);
  const w = Math.max(1, Math.round(req.width * scale));
  const h = Math.max(1, Math.round(req.height * scale));
  const digest = createHash("sha256")
    .update(`${req.modelId}\n${req.prompt}`)
    .digest("hex")
    .slice(0, 32);
  return `${digest}-${w}x${h}.png`;
}

const NAME = /^(?:\/images\/)?([0-9a-f]{32})-(\d{1,3})x(\d{1,3})\.png$/;

/** Render the PNG a name stands for; undefined when the name is not one this module makes. */
export function renderImage(path: string): Buffer | undefined {
  const m = NAME.exec(path.split("?")[0]);
  if (!m) return undefined;
  const [w, h] = [Number(m[2]), Number(m[3])];
  if (w < 1 || h < 1 || w > MAX_PIXELS_PER_SIDE || h > MAX_PIXELS_PER_SIDE) return undefined;
  const seed = Buffer.from(m[1], "hex");
  const from = [seed[0], seed[1], seed[2]];
  const to = [seed[3], seed[4], seed[5]];
  const contrast = 16 + (seed[6] % 48);
  const cell = 2 + (seed[7] % 8);
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  return encodePng(w, h, (x, y) => {
    // A diagonal gradient between two prompt-derived colours with a checker over it: enough
    // structure that different prompts give visibly different images.
    const t = (x / Math.max(1, w - 1) + y / Math.max(1, h - 1)) / 2;
    const lift = (Math.floor(x / cell) + Math.floor(y / cell)) % 2 === 0 ? contrast : -contrast;
    const c = (i: number) => clamp(from[i] + (to[i] - from[i]) * t + lift);
    return [c(0), c(1), c(2)];
  });
}
