// Only the emulator's own host names are served: a page of another site whose name was made to
// resolve to 127.0.0.1 (DNS rebinding) reaches the emulator's port with its own name in `Host`, and
// being same-origin to itself, would sign in, read the pages and call the control plane. So a
// request whose `Host` is not a loopback name (localhost, *.localhost, 127.0.0.0/8, ::1) or the
// address the emulator is bound to (or a name given with --allowed-host) is answered 421 before anything else looks at it. A request
// without `Host` (HTTP/1.0 from a script; no browser sends one) is let through.
import { networkInterfaces, hostname } from "node:os";

/** The name part of a `Host` header, lower case, IPv6 without its brackets. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") > 0 ? h.indexOf("]") : undefined);
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

function loopback(name: string): boolean {
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

export class HostCheck {
  private readonly own = new Set<string>();

  /** `extra`: names served besides the loopback names and the bound address. */
  constructor(extra: readonly string[] = []) {
    for (const name of extra) this.own.add(hostName(name));
  }

  /** The address the emulator listens on; for every interface (0.0.0.0, ::) the machine's own names. */
  bind(address: string): void {
    this.own.add(address.toLowerCase());
    if (address === "0.0.0.0" || address === "::") {
      this.own.add(hostname().toLowerCase());
      for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) this.own.add(a.address.toLowerCase());
    }
  }

  /** Whether a request with this `Host` header is the emulator's to serve. */
  allows(header: string | undefined): boolean {
    if (header === undefined) return true;
    const name = hostName(header);
    return loopback(name) || this.own.has(name);
  }

  /** The names served, for the refusal's text. */
  describe(): string {
    return ["localhost", "127.0.0.1", "[::1]", ...[...this.own].filter((n) => !loopback(n))].join(", ");
  }
}
