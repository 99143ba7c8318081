/** One server per test file, with an admin key of tenant `t`. */

import { after, before } from "node:test";
import { Cairn, type ClientOptions } from "../src/index.js";
import { Server } from "./server.js";

export interface Live {
  server: Server;
  /** An admin key of tenant `t`. */
  key: string;
  /** A client with that key. */
  cairn: Cairn;
  /** A client of the same server with other options. */
  client(options: ClientOptions): Cairn;
}

/** Starts a server (with `flags`) before the file's tests and stops it after. */
export function live(flags: string[] = ["--rate-writes", "0", "--rate-recalls", "0", "--rate-reads", "0"]): Live {
  const server = new Server(flags);
  const state = { server } as Live;
  before(async () => {
    state.key = server.key("t", "admin");
    await server.start();
    state.cairn = new Cairn({ baseUrl: server.url, apiKey: state.key });
    state.client = (options) => new Cairn({ baseUrl: server.url, ...options });
  });
  after(() => server.stop());
  return state;
}
