// The gRPC runtime, stubs and protobuf classes that @pulumi/pulumi ships, loaded as the SDK
// itself resolves them so that the message classes here are the ones its stubs expect.
import * as path from "node:path";

const PULUMI_DIR = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
/** Load a module as @pulumi/pulumi itself resolves it, so protobuf classes match its stubs. */
const fromPulumi = (id: string): any => require(require.resolve(id, { paths: [PULUMI_DIR] }));

export const grpc = fromPulumi("@grpc/grpc-js");
export const provrpc = fromPulumi("@pulumi/pulumi/proto/provider_grpc_pb");
export const provproto = fromPulumi("@pulumi/pulumi/proto/provider_pb");
export const engrpc = fromPulumi("@pulumi/pulumi/proto/engine_grpc_pb");
export const engproto = fromPulumi("@pulumi/pulumi/proto/engine_pb");
export const statusproto = fromPulumi("@pulumi/pulumi/proto/status_pb");
export const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");
export const emptyproto = fromPulumi("google-protobuf/google/protobuf/empty_pb");
