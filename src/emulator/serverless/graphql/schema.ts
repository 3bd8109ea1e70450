// The GraphQL schema of endpoint management, as the platform's GraphQL API serves it.
// graphql-js validates every document against it, so a quoted enum, a missing `String!` or an
// unknown field fail before any resolver runs, exactly as the platform's server does.
import { buildSchema, type GraphQLSchema } from "graphql";

export const SCHEMA_SDL = /* GraphQL */ `
  "FLASHBOOT gives faster cold starts; it is written as an enum literal, never a quoted string."
  enum FlashBootType {
    OFF
    FLASHBOOT
  }

  "One worker of an endpoint. desiredStatus is STARTING, RUNNING or EXITED (draining)."
  type EndpointWorker {
    id: String!
    desiredStatus: String!
  }

  type Endpoint {
    id: String!
    name: String!
    gpuIds: String!
    templateId: String!
    type: String!
    idleTimeout: Int
    locations: String
    flashBootType: FlashBootType
    scalerType: String
    scalerValue: Int
    workersMin: Int
    workersMax: Int
    networkVolumeId: String
    "GPUs per worker (at least 1); a worker costs gpuCount times its GPU's price."
    gpuCount: Int
    "A job's limit in milliseconds; 0 for none."
    executionTimeoutMs: Int
    pods: [EndpointWorker!]!
  }

  type ServerlessDiscount {
    discountFactor: Float!
    type: String!
    expirationDate: String
  }

  type User {
    endpoints: [Endpoint!]!
    serverlessDiscount: ServerlessDiscount
  }

  """
  name, gpuIds and templateId are required on create and on modify alike. type has no schema
  default on purpose: on modify a left-out field keeps its current value, so QB is applied by
  the resolver on create only.
  """
  input EndpointInput {
    id: String
    name: String!
    gpuIds: String!
    templateId: String!
    type: String
    idleTimeout: Int
    locations: String
    flashBootType: FlashBootType
    scalerType: String
    scalerValue: Int
    workersMin: Int
    workersMax: Int
    networkVolumeId: String
    gpuCount: Int
    executionTimeoutMs: Int
  }

  type Query {
    myself: User
  }

  type Mutation {
    saveEndpoint(input: EndpointInput!): Endpoint
    "null on success"
    deleteEndpoint(id: String!): Boolean
  }
`;

let built: GraphQLSchema | undefined;

/** The schema is immutable, so every service instance shares one built copy. */
export function endpointSchema(): GraphQLSchema {
  built ??= buildSchema(SCHEMA_SDL);
  return built;
}
