// Loaded before every test file (jest `setupFilesAfterEnv`): an inspector session a suite
// opens is closed when the suite ends.
//
// Pulumi serializes a dynamic provider's function (`__provider`) through an inspector session
// that it opens once per copy of its SDK and never closes: it enables V8's debugger and listens
// to every script parsed from then on. Each suite that runs a program under mocks in-process
// loads its own copy of the SDK (jest's module registry is per file), so in a long-lived worker
// the sessions piled up, each one still told of every module every later suite compiled, and
// each one holding its suite's copy of the SDK in memory. Node's `inspector` module is one for the
// whole worker, so its `Session` is wrapped here, once per worker.
import * as inspector from "node:inspector";

const OPENED = Symbol.for("computeplatform.test.openedInspectorSessions");

type Tracked = typeof inspector.Session.prototype & { [OPENED]?: Set<inspector.Session> };
const proto = inspector.Session.prototype as Tracked;

if (!proto[OPENED]) {
  const opened = new Set<inspector.Session>();
  const connect = proto.connect;
  Object.defineProperty(proto, OPENED, { value: opened });
  proto.connect = function (this: inspector.Session) {
    connect.call(this);
    opened.add(this);
  };
}

afterAll(() => {
  const opened = proto[OPENED]!;
  for (const session of opened) session.disconnect();
  opened.clear();
});
