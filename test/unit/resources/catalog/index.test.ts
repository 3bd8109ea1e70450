import { validVcpuCounts } from "../../../../src/resources/catalog";

describe("validVcpuCounts", () => {
  test.each([
    [{ min: 2, max: 32 }, [2, 4, 8, 16, 32]],
    [{ min: 1, max: 8 }, [2, 4, 8]],
    [{ min: 4, max: 4 }, [4]],
    [{ min: 3, max: 12 }, [4, 8]],
    [{ min: 5, max: 7 }, []],
    [{ min: 2, max: 1 }, []],
    [{ min: 64, max: 100 }, [64]],
  ])("vcpu %j -> %j", (vcpu, want) => {
    expect(validVcpuCounts({ vcpu })).toEqual(want);
  });

  test("a huge max stops at the cap instead of looping", () => {
    const counts = validVcpuCounts({ vcpu: { min: 2, max: Number.MAX_SAFE_INTEGER } });
    expect(counts.at(-1)).toBe(2 ** 30);
    expect(counts).toHaveLength(30);
  });
});
