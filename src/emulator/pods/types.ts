// The pod records of the emulator: what it stores (PodRecord) and what the API answers
// (PodView, the platform's Pod object).

export type PodStatus = "PROVISIONING" | "STARTING" | "RUNNING" | "EXITED" | "ERROR" | "TERMINATED";
export type PodAction = "start" | "stop" | "restart" | "terminate";

/** The env key the platform adds to every pod, as real platforms do. */
export const POD_ID_ENV = "COMPUTEPLATFORM_POD_ID";
export const INTERNAL_DOMAIN = "computeplatform.internal";

export interface Mounts {
  persistent?: { size: number; path: string };
  network?: { volumeId: string; path: string }[];
}

/** What the emulator stores for a pod (and writes to the state file). */
export interface PodRecord {
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number };
  mounts: Mounts;
  cloud: "SECURE" | "COMMUNITY";
  dataCenterId: string;
  locked: boolean;
  /** The global-network address the pod has now. */
  globalIp?: string;
  /** What the user asked for; applied at the next start or restart. */
  globalNetworkingWanted: boolean;
  createdAt: number;
  startedAt: number | null;
  status: PodStatus;
  /** When `status` was entered (epoch ms, real time). */
  statusAt: number;
  /** Decided when the container is (re)started, so a fault set later does not rewrite history. */
  failOnStart: boolean;
  /**
   * When an update's restart of a RUNNING container begins (epoch ms, real time): until then
   * the pod still runs the old container and reads RUNNING (the platform restarts
   * asynchronously). Absent when no restart is pending.
   */
  restartAt?: number;
  publicIp: string;
  publicPorts: number[];
}

/** The platform's Pod object, as the API answers it. */
export interface PodView {
  id: string;
  name: string;
  status: PodStatus;
  actions: PodAction[];
  image: string;
  args: string;
  disk: number;
  mounts: Mounts;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  cloud: "SECURE" | "COMMUNITY";
  dataCenterId: string | null;
  template: string | null;
  cost: number;
  locked: boolean;
  globalNetworking: { enabled: boolean; ip?: string; internalDns?: string };
  runtime: {
    uptime: number;
    gpus: { util: number; memoryUtil: number }[];
    cpu: { util: number };
    memory: { util: number };
    ports: { private: number; public: number | null; type: string; ip: string | null }[];
  } | null;
  createdAt: string;
  startedAt: string | null;
}

export const ACTIONS: Record<PodStatus, PodAction[]> = {
  PROVISIONING: ["start", "terminate"],
  STARTING: ["stop", "terminate"],
  RUNNING: ["stop", "restart", "terminate"],
  EXITED: ["start", "terminate"],
  ERROR: ["start", "terminate"],
  TERMINATED: [],
};

export interface CreatePodBody {
  name: string;
  image: string;
  args?: string;
  disk?: number;
  ports?: string[];
  env?: Record<string, string>;
  registry?: string | null;
  gpu?: { id: string; count?: number };
  cpu?: { id: string; vcpuCount: number };
  mounts?: Mounts;
  cloud?: "SECURE" | "COMMUNITY";
  dataCenterIds?: string[];
  globalNetworking?: boolean;
}

export type UpdatePodBody = Partial<
  Pick<CreatePodBody, "name" | "image" | "args" | "disk" | "ports" | "env" | "registry" | "mounts">
> & { locked?: boolean; globalNetworking?: boolean };
