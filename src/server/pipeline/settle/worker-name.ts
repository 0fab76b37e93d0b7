import { hostname } from "node:os";

/** Which process moved a cursor last (settled_by), for operators and tests. */
export const WORKER_NAME = `${hostname()}:${process.pid}`;
