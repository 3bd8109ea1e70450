// The rules behind "did you mean" (src/resources/inputs/arguments.ts), each on its own: the edit
// distance, how near is near enough, and which catalog ids a refused id was meant to be.
import { didYouMean, editDistance, nearestName, suggestIds } from "../../../../src/resources/inputs/arguments";

test.each<[string, string, number]>([
  ["", "abc", 3],
  ["abc", "", 3],
  ["Image", "image", 0],
  ["imgae", "image", 1],
  ["ba", "ab", 1],
  ["a", "ab", 1],
  ["abcd", "badc", 2],
  ["ax", "ya", 2],
  ["xa", "ay", 2],
])("edits from %j to %j: %i (a swap of two neighbours is one edit, case ignored)", (a, b, edits) => {
  expect(editDistance(a, b)).toBe(edits);
});

describe("the nearest name", () => {
  test("of names equally near, the first listed", () => {
    expect(nearestName("imag", ["image", "imago"])).toBe("image");
  });

  test("none from no names", () => {
    expect(nearestName("image", [])).toBeUndefined();
  });

  test("near enough: up to a third of the longer name's letters edited, that bound included", () => {
    expect(nearestName("ntwrkvl", ["networkVol"])).toBe("networkVol");
    expect(nearestName("waitTimeoutSecs", ["waitTimeoutSeconds"])).toBe("waitTimeoutSeconds");
    expect(nearestName("ntwrkv", ["networkVol"])).toBeUndefined();
  });

  test("a name of three letters or more inside a known one (or holding it) is near; of two, not", () => {
    expect(nearestName("vol", ["networkVolumeId"])).toBe("networkVolumeId");
    expect(nearestName("vo", ["networkVolumeId"])).toBeUndefined();
  });
});

describe("the ids a refused id was meant to be", () => {
  const GPUS = ["NVIDIA GeForce RTX 4090 Ti Super", "NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000"];

  test("those holding every word of it, the fewest extra words only", () => {
    expect(suggestIds("RTX 4090", GPUS)).toEqual(["NVIDIA GeForce RTX 4090"]);
  });

  test("separators at the ends or doubled make no empty word", () => {
    expect(suggestIds("_RTX 4090 ", GPUS)).toEqual(["NVIDIA GeForce RTX 4090"]);
  });

  test("at most three, in the catalog's order, and the question names each", () => {
    const known = ["NVIDIA A100 80GB", "NVIDIA A100 40GB", "NVIDIA A100 SXM", "NVIDIA A100 PCIe"];
    expect(suggestIds("A100", known)).toEqual(known.slice(0, 3));
    expect(didYouMean("A100", known)).toBe('did you mean "NVIDIA A100 80GB", "NVIDIA A100 40GB" or "NVIDIA A100 SXM"?');
  });
});
