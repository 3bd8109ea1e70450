// The repo brings its own Node 22 (the `node` devDependency); npm scripts must run on it.
test("tests run on the repo's Node 22, not the machine's Node", () => {
  expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22);
});
