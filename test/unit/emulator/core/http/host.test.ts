// Only the emulator's own host names are served (docs/emulator.md, "Options": --host, DNS
// rebinding): loopback names, the bound address, names given with --allowed-host, and a request
// without Host; anything else is refused before it is read.
import { hostname } from "node:os";
import { HostCheck, hostName } from "../../../../../src/emulator/core/http/host";

test.each([
  ["localhost:8080", "localhost"],
  ["LocalHost", "localhost"],
  ["  127.0.0.1:1 ", "127.0.0.1"],
  ["[::1]:8080", "::1"],
  ["[::1]", "::1"],
  ["::1", "::1"],
  ["example.com", "example.com"],
])("the name of Host %j is %j", (header, name) => {
  expect(hostName(header)).toBe(name);
});

test.each(["localhost", "localhost:4000", "app.localhost", "127.0.0.1", "127.255.0.9:80", "[::1]:80", "::ffff:127.0.0.1"])(
  "a loopback name (%s) is served",
  (header) => {
    expect(new HostCheck().allows(header)).toBe(true);
  },
);

test.each(["evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example", "128.0.0.1", "[::2]", "10.0.0.5"])(
  "another name (%s) is refused",
  (header) => {
    expect(new HostCheck().allows(header)).toBe(false);
  },
);

test("a request without Host is let through (HTTP/1.0 from a script; no browser sends one)", () => {
  expect(new HostCheck().allows(undefined)).toBe(true);
});

test("a name given with --allowed-host is served, in any case and with a port", () => {
  const check = new HostCheck(["Emu.Internal:9000"]);
  expect(check.allows("emu.internal")).toBe(true);
  expect(check.allows("EMU.INTERNAL:1234")).toBe(true);
  expect(check.allows("other.internal")).toBe(false);
});

test("the bound address is served; bound to every interface, the machine's own name too", () => {
  const one = new HostCheck();
  one.bind("192.0.2.7");
  expect(one.allows("192.0.2.7:8080")).toBe(true);
  expect(one.allows(hostname())).toBe(false);
  const all = new HostCheck();
  all.bind("0.0.0.0");
  expect(all.allows(`${hostname()}:8080`)).toBe(true);
});

test("describe lists the names served for the refusal's text, loopback first", () => {
  const check = new HostCheck(["emu.internal"]);
  check.bind("127.0.0.1");
  expect(check.describe()).toBe("localhost, 127.0.0.1, [::1], emu.internal");
});
