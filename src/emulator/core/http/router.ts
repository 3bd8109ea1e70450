// The route table: path templates matched segment by segment. A literal segment beats a
// parameter, then the route registered first wins; a path served under other methods only
// answers 405 with `Allow`.

import type { Route } from "./types";

interface Compiled {
  route: Route;
  segments: { literal?: string; param?: string }[];
  literals: number;
}

export type Match =
  | { route: Route; params: Record<string, string> }
  | { allow: string[] }
  | undefined;

export class Router {
  private readonly table: Compiled[] = [];

  add(routes: readonly Route[]): void {
    for (const route of routes) {
      const segments = route.path
        .split("/")
        .filter((s) => s.length > 0)
        .map((s) => (/^\{\w+\}$/.test(s) ? { param: s.slice(1, -1) } : { literal: s }));
      this.table.push({ route, segments, literals: segments.filter((s) => s.literal).length });
    }
  }

  routes(): Route[] {
    return this.table.map((c) => c.route);
  }

  match(method: string, path: string): Match {
    let seg: string[];
    try {
      seg = path.split("/").filter((s) => s.length > 0).map(decodeURIComponent);
    } catch {
      return undefined; // a malformed %-escape names no resource
    }
    let best: { c: Compiled; params: Record<string, string> } | undefined;
    const allow = new Set<string>();
    for (const c of this.table) {
      const params = bind(c, seg);
      if (!params) continue;
      allow.add(c.route.method);
      if (c.route.method === method && (!best || c.literals > best.c.literals)) best = { c, params };
    }
    if (best) return { route: best.c.route, params: best.params };
    return allow.size > 0 ? { allow: [...allow] } : undefined;
  }
}

function bind(c: Compiled, seg: string[]): Record<string, string> | undefined {
  if (c.segments.length !== seg.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < seg.length; i++) {
    const s = c.segments[i];
    if (s.literal !== undefined ? s.literal !== seg[i] : seg[i].length === 0) return undefined;
    if (s.param !== undefined) params[s.param] = seg[i];
  }
  return params;
}
